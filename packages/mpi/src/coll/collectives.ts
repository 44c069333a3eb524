import { MemAccess, isDatError, DatStatus, type DaplJob, type HwCollectives, type Lmr } from '@dapl/core';
import type { BufferOptions } from '../api/buffer-span.js';
import { ErrorClass, MpiError } from '../api/errors.js';
import type { MpiParameters } from '../api/mpi-parameters.js';
import { disseminationBarrier } from './algorithms/tree.js';
import type { CollChannel } from './channel.js';
import type { InPlace } from './in-place.js';
import { unpacked } from './packing.js';
import { bcastBuffer, bcastBytes } from './rooted.js';
import { runBlocking, ScheduleRequest, type Steps } from './schedule.js';

/** A collective's send buffer: the data, or IN_PLACE where the call allows it. */
export type SendBuffer = ArrayBufferView | InPlace;

/** Counts of which path barrier and bcast took (tests and tools read them through `mpi.counters()`). */
export interface CollCounters {
  hwBarriers: number;
  swBarriers: number;
  hwBcasts: number;
  swBcasts: number;
}

/** The library state the collectives use: the hardware path's and the counters (one per rank). */
export interface CollState {
  readonly collCounters: CollCounters;
  /** Settles when this rank's last hardware collective has (they go one at a time). */
  hwTail: Promise<void>;
  /** The registered buffer hardware broadcasts go through (made on first use). */
  hwSegment: Lmr | undefined;
  readonly job: Pick<DaplJob, 'ia' | 'connections'>;
  readonly parameters: Pick<MpiParameters, 'collectives' | 'hwSegment'>;
}

/** The communicator facts collectives need. */
export interface CollMember {
  readonly state: CollState;
  readonly channel: CollChannel;
  /** World rank of each member. */
  readonly members: readonly number[];
}

/**
 * Tags of nonblocking collectives on the collective context: above the blocking algorithms' tags
 * (CollTag), one per operation in issue order, so that several outstanding collectives on one
 * communicator match in the order every member started them (MPI-3.1 §5.12).
 */
const NONBLOCKING_TAG_BASE = 64;
const NONBLOCKING_TAGS = 1 << 24;

/**
 * The collectives of one communicator (MPI-3.1 ch. 5) on its collective channel. Every algorithm is
 * a schedule (`schedule.ts`), in `rooted.ts`, `reductions.ts` and `exchanges.ts`: a blocking
 * collective runs it to the end (`run`); a nonblocking one (`start`) runs it on the tag of its
 * sequence number, advanced by completions. Blocking barrier and bcast use the hardware when usable.
 */
export class Collectives {
  #hw: { ext: HwCollectives; usable: boolean } | null | undefined;
  /** Nonblocking collectives started on this communicator (the next one's sequence number). */
  #started = 0;

  constructor(private readonly m: CollMember) {}

  private get ch(): CollChannel {
    return this.m.channel;
  }

  /** Run a blocking collective's schedule on this communicator's channel. */
  run(steps: (ch: CollChannel) => Steps): Promise<void> {
    return runBlocking(steps(this.ch));
  }

  /** Start a nonblocking collective: `steps` made for the channel of its tag, checked and its first round posted now. */
  start(what: string, steps: (ch: CollChannel) => Steps): ScheduleRequest {
    const tag = NONBLOCKING_TAG_BASE + (this.#started % NONBLOCKING_TAGS);
    const request = new ScheduleRequest(steps(this.ch.tagged(tag)), `MPI ${what} on ${this.ch.name}`);
    this.#started++;
    return request;
  }

  // ---- barrier and bcast (hardware when usable) ---------------------------------------------

  async barrier(): Promise<void> {
    const hw = this.#hardware('barrier');
    const counters = this.m.state.collCounters;
    if (hw !== undefined) {
      counters.hwBarriers++;
      return this.#oneAtATime(() => hw.barrier(this.m.members));
    }
    counters.swBarriers++;
    return runBlocking(disseminationBarrier(this.ch));
  }

  async bcast(buf: ArrayBufferView, root: number, options: BufferOptions = {}): Promise<void> {
    const { root: r, span, data } = bcastBuffer(this.ch, buf, root, options);
    const hw = this.#hardware('bcast');
    const counters = this.m.state.collCounters;
    let done = 0;
    if (hw !== undefined) {
      done = await this.#oneAtATime(() => this.#hwBcast(hw, data, r));
      if (done === data.length) counters.hwBcasts++;
    }
    if (done < data.length) {
      counters.swBcasts++;
      await runBlocking(bcastBytes(this.ch, data.subarray(done), r));
    }
    unpacked(span, data, this.ch);
  }

  /**
   * Broadcast through the hardware (Tatebe et al. §3.3): the data goes in pieces through one registered
   * segment at offset 0 on every member. Returns the bytes done: if the serialized crossbar is busy
   * (every member gets the refusal), the rest falls back to software on every member alike.
   */
  async #hwBcast(hw: HwCollectives, data: Uint8Array, root: number): Promise<number> {
    const segment = this.#segment();
    const rootWorld = this.m.members[root];
    const me = this.ch.rank;
    let done = 0;
    while (done < data.length || data.length === 0) {
      const n = Math.min(segment.length, data.length - done);
      if (me === root) this.ch.copy(data.subarray(done, done + n), segment.bytes);
      try {
        await hw.broadcast(this.m.members, rootWorld, segment, 0, n);
      } catch (error) {
        if (isDatError(error, DatStatus.INVALID_STATE)) return done;
        throw new MpiError(ErrorClass.ERR_OTHER, `hardware broadcast failed: ${(error as Error).message}`, { cause: error });
      }
      if (me !== root) this.ch.copy(segment.bytes.subarray(0, n), data, done);
      done += n;
      if (data.length === 0) break;
    }
    return done;
  }

  /**
   * The hardware holds one barrier or broadcast per node at a time: this rank's hardware
   * collectives, on whatever communicator, go in call order, one after the other. Every rank calls
   * them in the same order (MPI's rule for collectives), so the ranks meet in the same rounds.
   */
  #oneAtATime<T>(run: () => Promise<T>): Promise<T> {
    const state = this.m.state;
    const result = state.hwTail.then(run);
    state.hwTail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  #segment(): Lmr {
    const state = this.m.state;
    state.hwSegment ??= state.job.connections.pz.registerLmr(new Uint8Array(state.parameters.hwSegment), MemAccess.LOCAL);
    return state.hwSegment;
  }

  /** The hw-collectives extension if this call should use it; undefined for software. */
  #hardware(what: string): HwCollectives | undefined {
    const mode = this.m.state.parameters.collectives;
    if (mode === 'software') return undefined;
    if (this.#hw === undefined) {
      const ext = this.m.state.job.ia.extension('hw-collectives');
      this.#hw = ext === undefined ? null : { ext, usable: ext.usable(this.m.members) };
    }
    const usable = this.#hw !== null && this.#hw.usable;
    if (mode === 'hardware' && !usable) {
      throw new MpiError(
        ErrorClass.ERR_OTHER,
        this.#hw === null
          ? `mpi.collectives is 'hardware' but provider ${this.m.state.job.ia.provider.name} has no hw-collectives (${what})`
          : `mpi.collectives is 'hardware' but the hardware cannot serve ${this.ch.name} (world ranks ${this.m.members.join(',')}) (${what})`,
        { argument: 'mpi.collectives' },
      );
    }
    return usable ? this.#hw!.ext : undefined;
  }
}
