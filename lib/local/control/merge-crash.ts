/**
 * The local `merge` fault: the next merge invocation crashes right after its k-th write, as if its process
 * died there. Every DynamoDB and S3 write call the invocation makes is counted by a middleware on the shared
 * SDK clients, keyed by invocation (AsyncLocalStorage), so the merge code has no special case for it. After
 * the crash no further write or queue send of that invocation succeeds (parallel writes after the k-th fail
 * too) and the invocation throws, so the whole batch is received again, as after a real crash.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { InitializeHandler, InitializeHandlerArguments, InitializeHandlerOutput, InitializeMiddleware, MetadataBearer } from '@smithy/types';
import type { FunctionName } from '../../../shared/topology';

/** DynamoDB (low-level and document client names) and S3 calls that write. */
const WRITES =
  /^(Put|Update|Delete|BatchWrite|TransactWrite)(Item|Items)?Command$|^(PutObject|DeleteObjects?|CopyObject|CreateMultipartUpload|UploadPart|CompleteMultipartUpload)Command$/;

interface Invocation {
  writes: number;
  crashAfter: number | null;
  crashed: boolean;
}

/** What `/_local/faults` shows of the merge fault. */
export interface MergeFaultState {
  merge: 'none' | 'crash-once';
  /** The armed crash: after this many writes of the next merge (null: none armed). */
  mergeCrashAfter: number | null;
  /** Writes the last merge invocation made (null before the first). */
  mergeWrites: number | null;
  /** Merge invocations crashed so far. */
  mergeCrashes: number;
}

export class MergeCrash {
  private armed: number | null = null;
  private lastWrites: number | null = null;
  private crashes = 0;
  private readonly current = new AsyncLocalStorage<Invocation>();

  /** Arms a crash of the next merge after its `k`-th write (k >= 1), or disarms with null. */
  arm(k: number | null): void {
    this.armed = k;
  }

  get state(): MergeFaultState {
    return { merge: this.armed === null ? 'none' : 'crash-once', mergeCrashAfter: this.armed, mergeWrites: this.lastWrites, mergeCrashes: this.crashes };
  }

  /** Runs one invocation of `fn`: a merge counts its writes and takes the armed crash. */
  async run<T>(fn: FunctionName, body: () => Promise<T>): Promise<T> {
    // Other functions run outside any merge's context, even when a merge's queue send started them.
    if (fn !== 'merge') return this.current.exit(body);
    const inv: Invocation = { writes: 0, crashAfter: this.armed, crashed: false };
    this.armed = null;
    try {
      const out = await this.current.run(inv, body);
      if (inv.crashed) throw crashError(inv);
      return out;
    } catch (err) {
      throw inv.crashed ? crashError(inv) : err;
    } finally {
      this.lastWrites = inv.writes;
      if (inv.crashed) this.crashes++;
    }
  }

  /** Throws when the calling invocation has crashed (its queue sends fail like its writes). */
  assertAlive(): void {
    const inv = this.current.getStore();
    if (inv?.crashed) throw crashError(inv);
  }

  /**
   * Runs one write call of the calling invocation: a merge's is counted, and the merge crashes before it (once
   * crashed, or past the armed count) or right after the armed one lands.
   */
  async write<T>(call: () => Promise<T>): Promise<T> {
    const inv = this.current.getStore();
    if (!inv) return call();
    if (inv.crashed || (inv.crashAfter !== null && inv.writes >= inv.crashAfter)) {
      inv.crashed = true;
      throw crashError(inv);
    }
    const n = ++inv.writes;
    const out = await call();
    // The k-th write lands; the process dies before its caller hears back.
    if (n === inv.crashAfter) {
      inv.crashed = true;
      throw crashError(inv);
    }
    return out;
  }

  /** An `initialize` middleware for an SDK client: counts the writes of a merge and crashes it after the armed one. */
  readonly middleware: InitializeMiddleware<object, MetadataBearer> =
    (next: InitializeHandler<object, MetadataBearer>, context) =>
    async (args: InitializeHandlerArguments<object>): Promise<InitializeHandlerOutput<MetadataBearer>> =>
      WRITES.test(String((context as { commandName?: string }).commandName)) ? this.write(() => next(args)) : next(args);
}

const crashError = (inv: Invocation): Error => Object.assign(new Error(`merge fault: crashed after write ${inv.crashAfter}`), { name: 'LocalMergeCrash' });
