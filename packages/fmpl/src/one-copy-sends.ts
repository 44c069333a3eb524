import { MemAccess, type Clock, type Lmr, type ProtectionZone } from '@dapl/core';
import { FmplCode, FmplError } from './errors.js';
import type { AreaLayout } from './layout.js';
import { SendBufferRing } from './send-buffer-ring.js';
import { SendSpool, type Spooled } from './send-spool.js';

/** What the one-copy path asks of the engine: the zero-copy write, and where the headers stand. */
export interface OneCopyHost {
  /** Write the body to `dst` once its header for `slot` (or the ANY_TAG one) is here. */
  writeBody(bytes: Uint8Array, lmr: Lmr, offset: number, dst: number, slot: number): Promise<void>;
  /** `dst`'s own header for `slot` is here. */
  readonly exactHeader: (dst: number, slot: number) => boolean;
  /** A header a spooled send to `dst` on `slot` may take is here. */
  readonly headerReady: (dst: number, slot: number) => boolean;
  /** Sends that waited behind a spooled one may now take a header held for it. */
  wakeSendsTo(dst: number, slot: number): void;
  /** Resolves when a header `headerReady` accepts arrives, declared as `what`. */
  waitHeader(what: string, dst: number, slot: number): Promise<unknown>;
  /** Counted in the engine's path counters. */
  readonly counters: { oneCopySends: number; spooledSent: number };
}

/**
 * FMPL's one-copy sends (Tatebe et al. §2.1): after `sendbuf_set`, a send that waits longer than the
 * timeout copies its body into the send buffer and returns; the copy goes out as soon as its header
 * comes (at every FMPL call, and when a header arrives), or at `sendbuf_check`, which counts what
 * went and what waits. Failures of copies whose callers have returned are kept for that check.
 */
export class OneCopySends {
  /** Spooled sends by (peer, slot): the engine asks which headers they hold. */
  readonly spool: SendSpool;
  readonly #host: OneCopyHost;
  readonly #pz: ProtectionZone;
  readonly #clock: Clock;
  readonly #layout: AreaLayout;
  /** Spooled messages sent since the last `flush` asked (they go as soon as their header comes). */
  #sentSinceCheck = 0;
  #flushing: Promise<void> = Promise.resolve();
  /** Spooled messages being written now (their bytes are still read from the send buffer). */
  #writing = 0;
  readonly #errors: FmplError[] = [];
  #sendbuf: { lmr: Lmr; ring: SendBufferRing; timeoutNs: number } | undefined;

  constructor(host: OneCopyHost, pz: ProtectionZone, clock: Clock, layout: AreaLayout, size: number) {
    this.#host = host;
    this.#pz = pz;
    this.#clock = clock;
    this.#layout = layout;
    this.spool = new SendSpool(size, layout.slots, layout.count, layout.anySlot);
  }

  /** How long a send waits for its header before it copies (undefined: no send buffer, it waits). */
  get timeoutNs(): number | undefined {
    return this.#sendbuf?.timeoutNs;
  }

  get spooled(): number {
    return this.spool.size;
  }

  /** One copy: the body goes into the send buffer now and out when the header comes. */
  copy(bytes: Uint8Array, dst: number, slot: number): void {
    const sb = this.#sendbuf!;
    const block = sb.ring.allocate(bytes.length);
    if (block === undefined) {
      throw new FmplError(FmplCode.ERR_SENDBUF, `the send buffer (${sb.lmr.length} bytes, ${sb.ring.inUse} held by copies not yet sent) has no room for ${bytes.length} bytes to rank ${dst}; receive it sooner or set a larger send buffer`, { argument: 'buf' });
    }
    const copy = sb.lmr.bytes.subarray(block.offset, block.offset + bytes.length);
    copy.set(bytes);
    this.#clock.chargeCopy(bytes.length);
    this.#host.counters.oneCopySends++;
    this.spool.add({ dst, slot, bytes: copy, lmr: sb.lmr, block });
  }

  /**
   * Send the spooled messages whose headers are here (FMPL's sendbuf_check); how many went since
   * the last check and how many wait. A header's arrival also sends its spooled message at once, so
   * that a rank blocked in another FMPL call never holds back a receiver.
   */
  async flush(): Promise<{ nsend: number; nspool: number }> {
    await this.progress();
    const nsend = this.#sentSinceCheck;
    this.#sentSinceCheck = 0;
    const failed = this.takeError();
    if (failed !== undefined) throw failed;
    return { nsend, nspool: this.spool.size };
  }

  /**
   * The first failure of a spooled send since the last call (their callers returned long ago, so
   * sendbufCheck and finalize report them, never an unrelated call), naming how many more failed.
   */
  takeError(): FmplError | undefined {
    const errors = this.#errors;
    if (errors.length === 0) return undefined;
    const [first] = errors;
    const more = errors.length - 1;
    errors.length = 0;
    return more === 0 ? first : new FmplError(first.code, `${first.detail} (and ${more} more spooled send${more === 1 ? '' : 's'} failed)`, { argument: first.argument, cause: first });
  }

  /** Send what can go (at every FMPL call); the counts and failures stay for the next `flush`. Never rejects. */
  progress(): Promise<void> {
    const run = this.#flushing.then(() => this.#flushNow());
    this.#flushing = run;
    return run;
  }

  async #flushNow(): Promise<void> {
    const going: Promise<void>[] = [];
    const released: Spooled[] = [];
    // #send takes its header synchronously (writeBody's first step), as release needs.
    this.spool.release(this.#host.exactHeader, this.#host.headerReady, (s) => {
      released.push(s);
      going.push(this.#send(s));
    });
    // Sends that waited behind these may now take a header that was held for them: they look again.
    for (const s of released) this.#host.wakeSendsTo(s.dst, s.slot);
    this.#writing += going.length;
    await Promise.all(going);
    this.#writing -= going.length;
  }

  /** One spooled message out; a failure is kept for sendbufCheck, never thrown at whoever flushed. */
  async #send(s: Spooled): Promise<void> {
    try {
      await this.#host.writeBody(s.bytes, s.lmr, s.bytes.byteOffset - s.lmr.bytes.byteOffset, s.dst, s.slot);
      this.#sentSinceCheck++;
      this.#host.counters.spooledSent++;
    } catch (error) {
      const known = error instanceof FmplError ? error : undefined;
      const why = `the one-copy send to rank ${s.dst} on matching area ${s.slot} failed after its call had returned: ${known?.detail ?? String(error)}`;
      this.#errors.push(new FmplError(known?.code ?? FmplCode.ERR_TRANSPORT, why, { argument: known?.argument, cause: error }));
    } finally {
      // Nothing reads the copy any more (the write has completed, or was never posted).
      this.#sendbuf?.ring.free(s.block);
    }
  }

  /** `sendbuf_set`: a new send buffer of `bytes` and timeout, once nothing is left in the old one. */
  setSendBuffer(bytes: number, timeoutNs: number): void {
    const left = this.spool.size + this.#writing;
    if (left > 0) throw new FmplError(FmplCode.ERR_SENDBUF, `${left} messages still wait in or are being sent from the send buffer: sendbufCheck() until they have gone`, { argument: 'bytes' });
    this.#sendbuf?.lmr.free();
    this.#sendbuf = { lmr: this.#pz.registerLmr(new Uint8Array(bytes), MemAccess.LOCAL), ring: new SendBufferRing(bytes), timeoutNs };
  }

  /** Wait until every spooled message has gone (finalize): their receivers must post their receives. */
  async drain(): Promise<void> {
    // Until nothing is spooled after the last flush (a send that resumed from that flush may spool).
    for (await this.#flushing; this.spool.size > 0; await this.#flushing) {
      const { dst, slot } = this.spool.oldest()!;
      await this.#host.waitHeader(`FMPL finalize: spooled send to rank ${dst} on matching area ${slot} waits for its receive`, dst, slot);
      // Its header (own or wildcard) is here: noted again, so this progress sends it whatever became of its notice.
      this.spool.headerArrived(dst, slot);
      if (slot < this.#layout.count) this.spool.headerArrived(dst, this.#layout.anySlot);
      await this.progress();
    }
  }
}
