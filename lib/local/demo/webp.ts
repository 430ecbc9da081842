/**
 * A tiny lossless WebP (VP8L) encoder for two-colour pictures: the demo's item icons (the service serves
 * 56x56 WebP files from the bucket, spec api.md "Icons") without an image library. Each channel of the two
 * colours needs at most two values, so every channel gets VP8L's "simple" prefix code of one or two
 * symbols and a pixel costs at most four bits. No transforms, no colour cache, no back-references.
 */

class BitWriter {
  private bytes: number[] = [];
  private acc = 0;
  private used = 0;

  /** Writes `n` bits of `value`, least significant first (VP8L's bit order). */
  write(value: number, n: number): void {
    for (let i = 0; i < n; i++) {
      this.acc |= ((value >>> i) & 1) << this.used;
      if (++this.used === 8) {
        this.bytes.push(this.acc);
        this.acc = 0;
        this.used = 0;
      }
    }
  }

  finish(): Buffer {
    if (this.used > 0) this.bytes.push(this.acc);
    return Buffer.from(this.bytes);
  }
}

export type Rgb = readonly [r: number, g: number, b: number];

/** One channel's prefix code: its symbols ascending (a canonical code gives the smaller one the bit 0). */
function channelCode(a: number, b: number): number[] {
  return a === b ? [a] : [Math.min(a, b), Math.max(a, b)];
}

/** VP8L's simple code: 1 (simple), number of symbols - 1, whether the first symbol takes 8 bits, the symbols. */
function writeSimpleCode(w: BitWriter, symbols: number[]): void {
  w.write(1, 1);
  w.write(symbols.length - 1, 1);
  const wide = symbols[0] > 1 ? 1 : 0;
  w.write(wide, 1);
  w.write(symbols[0], wide ? 8 : 1);
  if (symbols.length === 2) w.write(symbols[1], 8);
}

/** Writes one channel value: nothing for a one-symbol code, else the bit of its symbol. */
function writeSymbol(w: BitWriter, symbols: number[], value: number): void {
  if (symbols.length === 2) w.write(value === symbols[1] ? 1 : 0, 1);
}

/**
 * An opaque `width` x `height` WebP whose pixel (x, y) is `fg` where `ink(x, y)` is true and `bg` elsewhere.
 */
export function twoToneWebp(width: number, height: number, ink: (x: number, y: number) => boolean, fg: Rgb, bg: Rgb): Buffer {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > 16384 || height > 16384)
    throw new RangeError('size out of range');
  const w = new BitWriter();
  w.write(0x2f, 8); // VP8L signature
  w.write(width - 1, 14);
  w.write(height - 1, 14);
  w.write(0, 1); // alpha is not used
  w.write(0, 3); // version 0
  w.write(0, 1); // no transform
  w.write(0, 1); // no colour cache
  w.write(0, 1); // one prefix code group for the whole image
  const [r, g, b] = [0, 1, 2].map((c) => channelCode(fg[c], bg[c]));
  for (const code of [g, r, b, [255], [0]]) writeSimpleCode(w, code); // green, red, blue, alpha, distance
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const c = ink(x, y) ? fg : bg;
      writeSymbol(w, g, c[1]);
      writeSymbol(w, r, c[0]);
      writeSymbol(w, b, c[2]);
    }
  }
  const data = w.finish();
  const pad = data.length % 2;
  const out = Buffer.alloc(20 + data.length + pad);
  out.write('RIFF', 0, 'latin1');
  out.writeUInt32LE(12 + data.length + pad, 4);
  out.write('WEBPVP8L', 8, 'latin1');
  out.writeUInt32LE(data.length, 16);
  data.copy(out, 20);
  return out;
}
