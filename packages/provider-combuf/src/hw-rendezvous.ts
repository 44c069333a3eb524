import { DatError, DatStatus, type Lmr, type SimClock } from '@dapl/core';
import type { CombufFabric } from './fabric.js';

export type HwCollectiveKind = 'barrier' | 'broadcast';

/** What a broadcast member passes; every member must pass the same root, offset and length. */
export interface BroadcastArgs {
  readonly root: number;
  readonly segment: Lmr;
  readonly offset: number;
  readonly length: number;
}

/** One member's call, waiting for the others. */
export interface HwArrival {
  readonly node: number;
  readonly clock: SimClock;
  readonly broadcast?: BroadcastArgs;
}

interface Waiter {
  readonly arrival: HwArrival;
  readonly atNs: number;
  resolve(): void;
  reject(error: DatError): void;
}

/** One round of a collective on one node set. */
interface Meeting {
  readonly key: string;
  readonly nodes: readonly number[];
  readonly kind: HwCollectiveKind;
  readonly first: HwArrival;
  readonly waiters: Map<number, Waiter>;
  /** Members that came and gave up waiting (their timeout): they did arrive. */
  readonly withdrawn: Set<number>;
  /** Set when the round went wrong: every member (also those still to come) gets it. */
  failure?: DatError;
}

interface Release {
  readonly waiters: readonly Waiter[];
  readonly atNs: number;
  /** Broadcast: the root's bytes, copied into every other member's segment at release. */
  readonly data?: Uint8Array;
}

/**
 * The hardware barrier and broadcast of one machine (Tatebe et al. §3.2–3.3): members of the same node
 * set meet here; when the last one arrives the completion is one kernel event at the modelled
 * time, releasing all members at once. There is one serialized crossbar (Tatebe et al. §3.2), so a broadcast
 * that would start before the previous one ends is refused, not queued (INVALID_STATE).
 */
export class HwRendezvous {
  private readonly meetings = new Map<string, Meeting>();
  /** When the serialized crossbar is free again. */
  private broadcastBusyUntil = 0;

  constructor(private readonly fabric: CombufFabric) {}

  /** `arrival` joins the round of `kind` on `nodes` (sorted, already checked); resolves at release. */
  arrive(kind: HwCollectiveKind, nodes: readonly number[], arrival: HwArrival): Promise<void> {
    const key = nodes.join(',');
    let meeting = this.meetings.get(key);
    if (meeting === undefined) {
      meeting = { key, nodes, kind, first: arrival, waiters: new Map(), withdrawn: new Set() };
      this.meetings.set(key, meeting);
    }
    if (meeting.waiters.has(arrival.node)) {
      return Promise.reject(new DatError(DatStatus.INVALID_STATE, `node ${arrival.node} is already in a hardware ${meeting.kind} on nodes [${key}]`, { argument: 'group' }));
    }
    const promise = new Promise<void>((resolve, reject) => {
      meeting.waiters.set(arrival.node, { arrival, atNs: arrival.clock.nowNs, resolve, reject });
    });
    if (meeting.failure === undefined) {
      const mismatch = this.mismatch(meeting, kind, arrival);
      if (mismatch !== undefined) this.fail(meeting, mismatch);
    } else {
      meeting.waiters.get(arrival.node)!.reject(meeting.failure);
    }
    if (meeting.waiters.size === nodes.length) this.close(meeting);
    return promise;
  }

  /** The members of the open round on `nodes` that have not come (none when no round is open). */
  absent(nodes: readonly number[]): number[] {
    const meeting = this.meetings.get(nodes.join(','));
    return meeting === undefined ? [] : absentFrom(meeting, nodes);
  }

  /**
   * A member gave up waiting (its timeout): it leaves the round, if the round is still open. Returns
   * the members that never arrived (for its error; not those that came and gave up before it), or
   * undefined when the round was already over.
   */
  withdraw(nodes: readonly number[], node: number): number[] | undefined {
    const meeting = this.meetings.get(nodes.join(','));
    if (meeting === undefined || !meeting.waiters.has(node)) return undefined;
    const missing = absentFrom(meeting, nodes);
    meeting.waiters.delete(node);
    meeting.withdrawn.add(node);
    if (meeting.waiters.size === 0) this.meetings.delete(meeting.key);
    return missing;
  }

  /** Why `arrival` does not fit the round's first call, or undefined when it does. */
  private mismatch(meeting: Meeting, kind: HwCollectiveKind, arrival: HwArrival): DatError | undefined {
    const where = `hardware ${meeting.kind} on nodes [${meeting.key}]`;
    if (kind !== meeting.kind) return new DatError(DatStatus.INVALID_STATE, `node ${arrival.node} called ${kind} while the ${where} is gathering`, { argument: 'group' });
    const a = meeting.first.broadcast;
    const b = arrival.broadcast;
    if (a === undefined || b === undefined) return undefined;
    for (const name of ['offset', 'root', 'length'] as const) {
      if (a[name] !== b[name]) {
        return new DatError(DatStatus.INVALID_PARAMETER, `${name} must be the same on every member of the ${where}: node ${meeting.first.node} passed ${a[name]}, node ${arrival.node} passed ${b[name]}`, { argument: name });
      }
    }
    return undefined;
  }

  private fail(meeting: Meeting, error: DatError): void {
    meeting.failure = error;
    for (const w of meeting.waiters.values()) w.reject(error);
  }

  /** Every member has arrived: release them at the modelled time (or drop a failed round). */
  private close(meeting: Meeting): void {
    this.meetings.delete(meeting.key);
    if (meeting.failure !== undefined) return;
    const waiters = [...meeting.waiters.values()];
    const start = Math.max(this.fabric.kernel.now, ...waiters.map((w) => w.atNs));
    if (meeting.kind === 'barrier') return this.release({ waiters, atNs: start + this.fabric.params.hwBarrierNs });
    const args = meeting.first.broadcast!;
    if (start < this.broadcastBusyUntil) {
      const error = new DatError(DatStatus.INVALID_STATE, `the serialized crossbar is busy with another hardware broadcast until ${this.broadcastBusyUntil} ns (one at a time, Tatebe et al. §3.2); this one on nodes [${meeting.key}] would start at ${start} ns`, { argument: 'group' });
      for (const w of waiters) w.reject(error);
      return;
    }
    const root = meeting.waiters.get(args.root)!.arrival.broadcast!;
    // The root's NIA reads the area when the broadcast starts.
    const data = root.segment.bytes.slice(args.offset, args.offset + args.length);
    const atNs = this.broadcastEndsAt(start, args.length);
    this.broadcastBusyUntil = atNs;
    this.release({ waiters, atNs, data });
  }

  /** The root's NIA, the wire at the link rate, the cable, the serialized y-crossbar and the x-crossbars, each member's NIA. */
  broadcastEndsAt(startNs: number, length: number): number {
    const n = this.fabric.network;
    return startNs + n.injectOverheadNs + n.serializationNs(length) + n.latencyNs + this.fabric.params.hwBroadcastCrossbars * n.perHopNs + n.ejectOverheadNs;
  }

  private release(r: Release): void {
    this.fabric.kernel.schedule(r.atNs, released, r);
  }
}

function released(r: Release): void {
  for (const w of r.waiters) {
    const b = w.arrival.broadcast;
    if (r.data !== undefined && b !== undefined && w.arrival.node !== b.root && !b.segment.freed) b.segment.bytes.set(r.data, b.offset);
    w.arrival.clock.advanceTo(r.atNs);
    w.resolve();
  }
}

/** The members of `meeting`'s round that have not come, and did not come and give up. */
function absentFrom(meeting: Meeting, nodes: readonly number[]): number[] {
  return nodes.filter((n) => !meeting.waiters.has(n) && !meeting.withdrawn.has(n));
}
