/**
 * A growing byte buffer for writing large JSON answers of integers (history, intraday) without making a
 * string per number: those answers run to tens of megabytes, where per-value strings cost more in garbage
 * collection than the writing itself. Only ASCII is written.
 */
export class JsonBytes {
  private buf: Buffer;
  length = 0;

  constructor(capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** One ASCII character code. */
  byte(c: number): void {
    this.room(1);
    this.buf[this.length++] = c;
  }

  /** ASCII text (JSON punctuation, already-escaped strings). */
  ascii(text: string): void {
    this.room(text.length);
    this.length += this.buf.write(text, this.length, 'latin1');
  }

  /** A safe integer in decimal. */
  int(n: number): void {
    if (n < 0 || n > 0x7fffffff) {
      this.ascii(String(n));
      return;
    }
    this.room(10);
    if (n === 0) {
      this.buf[this.length++] = 48;
      return;
    }
    let digits = 0;
    for (let v = n; v > 0; v = (v / 10) | 0) digits++;
    let at = this.length + digits;
    this.length = at;
    for (let v = n; v > 0; v = (v / 10) | 0) this.buf[--at] = 48 + (v % 10);
  }

  /** Bytes written by another writer (or a slice of them). */
  bytes(from: Uint8Array): void {
    this.room(from.length);
    this.buf.set(from, this.length);
    this.length += from.length;
  }

  /** Bytes `start..end` of another buffer; short spans are copied in place, with no view object per copy. */
  span(from: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.room(n);
    const buf = this.buf;
    let at = this.length;
    if (n < 64) for (let i = start; i < end; i++) buf[at++] = from[i];
    else buf.set(from.subarray(start, end), at);
    this.length += n;
  }

  /** A view of what was written (valid until the next write). */
  view(start = 0, end = this.length): Buffer {
    return this.buf.subarray(start, end);
  }

  /** The text written. */
  text(): string {
    return this.buf.toString('latin1', 0, this.length);
  }
}

export const COMMA = 44;
export const OPEN = 91;
export const CLOSE = 93;

/**
 * JSON text built by hand (a big answer would spend most of its time in JSON.stringify), used as it is. Made
 * from ASCII bytes (a JsonBytes writer's), it is kept as those bytes and made a string only when asked for:
 * an answer that goes to a file is written from its bytes (shared/http/answer-files.ts), so a 27 MB history
 * is not decoded to a string and encoded back (issue 27 point 3).
 */
export class JsonText {
  #text: string | undefined;
  /** The text's bytes when it was written as bytes (ASCII only: each byte is one character). */
  readonly bytes: Buffer | undefined;

  constructor(text: string | Buffer) {
    if (typeof text === 'string') this.#text = text;
    else this.bytes = text;
  }

  get text(): string {
    this.#text ??= (this.bytes as Buffer).toString('latin1');
    return this.#text;
  }
}

/** An answer body as JSON text. */
export const bodyText = (body: unknown): string => (body instanceof JsonText ? body.text : JSON.stringify(body));
