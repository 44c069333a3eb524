import {
  DatError,
  DatStatus,
  EpState,
  MemAccess,
  type ActiveMessages,
  type AmCounter,
  type AmCounters,
  type AmHeaderHandler,
  type AmPlacement,
  type Endpoint,
  type Iov,
  type RmrTriplet,
  type SimClock,
} from '@dapl/core';
import { checkIov, describeValue, gatherInto, IovWriter } from '@dapl/core/provider-kit';
import { LapiAmCounter, type CounterOwner } from './am-counter.js';
import { LapiEndpoint } from './ep.js';
import type { LapiFabric } from './fabric.js';

/** The IA an extension belongs to, as the extension sees it. */
export interface AmOwner extends CounterOwner {
  readonly node: number;
  readonly clock: SimClock;
}

/** As lapiLimits' maxIov. */
const MAX_IOV = 16;

/** One operation in flight on a connection: its stages drop it when either end's connection changed. */
interface Op {
  readonly src: LapiEndpoint;
  readonly dst: LapiEndpoint;
  readonly srcGen: number;
  readonly dstGen: number;
  readonly counters: AmCounters | undefined;
}

function live(op: Op): boolean {
  return op.src.gen === op.srcGen && op.dst.gen === op.dstGen;
}

/**
 * The `active-messages` extension of one lapi IA (seed 000 §3, §5.3): Amsend with user header
 * handlers that return the buffer the data is placed in, completion handlers (after a thread switch
 * unless in-context), LAPI's origin/target/completion counters, and Put/Get through an RMR window.
 * Every stage is a kernel event on the fabric's HAL paths and switch, as for DAT's DTOs (progress.ts).
 * Failures found at the target (an unknown handler id, a placement too small, a refused window) drop
 * the operation and raise an `async-error` on the connect EVD of the endpoint that sees them.
 */
export class LapiActiveMessages implements ActiveMessages {
  private readonly handlers = new Map<number, AmHeaderHandler>();
  private readonly targetCounters = new Map<number, LapiAmCounter>();

  constructor(
    private readonly fabric: LapiFabric,
    private readonly owner: AmOwner,
  ) {}

  registerHandler(id: number, handler: AmHeaderHandler): void {
    requireId(id, 'id');
    if (typeof handler !== 'function') throw new DatError(DatStatus.INVALID_PARAMETER, `handler must be a function, got ${describeValue(handler)}`, { argument: 'handler' });
    this.handlers.set(id, handler);
  }

  createCounter(id?: number): AmCounter {
    if (id === undefined) return new LapiAmCounter(this.owner, undefined);
    requireId(id, 'id');
    if (this.targetCounters.has(id)) throw new DatError(DatStatus.INVALID_PARAMETER, `id ${id} is already a target counter of ${this.owner.address}`, { argument: 'id' });
    const counter = new LapiAmCounter(this.owner, id);
    this.targetCounters.set(id, counter);
    return counter;
  }

  amsend(target: Endpoint, handler: number, uhdr: Uint8Array, data: Iov, counters?: AmCounters): void {
    const src = this.connected(target);
    requireId(handler, 'handler');
    if (!(uhdr instanceof Uint8Array)) throw new DatError(DatStatus.INVALID_PARAMETER, `uhdr must be a Uint8Array, got ${describeValue(uhdr)}`, { argument: 'uhdr' });
    const length = checkIov(data, 'data', src.pz, MemAccess.LOCAL_READ, MAX_IOV);
    checkCounters(counters);
    // HAL copies the data out as the packets go: the bytes are those of the buffer at the call.
    const bytes = new Uint8Array(length);
    gatherInto(data, bytes, 0);
    const header = uhdr.slice();
    const op = this.start(src, counters);
    const wire = length + header.length;
    const fabric = this.fabric;
    fabric.kernel.schedule(this.charge(), () => {
      if (!live(op)) return;
      const arrival = fabric.send(src.node, op.dst.node, wire, fabric.kernel.now);
      this.originReusable(op);
      fabric.kernel.schedule(arrival, () => {
        if (!live(op)) return;
        const am = op.dst.ia.am;
        const placed = am.place(op.dst, handler, header, bytes, src.node);
        if (placed === undefined) return;
        const at = fabric.receive(op.dst.node, wire, fabric.kernel.now) + completionCost(fabric, placed);
        fabric.kernel.schedule(at, () => {
          if (!live(op)) return;
          if (placed.completion !== undefined) am.runCompletion(op.dst, placed.completion, header, src.node);
          am.targetArrived(op);
          ack(fabric, op);
        });
      });
    });
  }

  put(target: Endpoint, data: Iov, remote: RmrTriplet, counters?: AmCounters): void {
    const src = this.connected(target);
    const length = checkIov(data, 'data', src.pz, MemAccess.LOCAL_READ, MAX_IOV);
    requireRemote(remote);
    checkCounters(counters);
    const bytes = new Uint8Array(length);
    gatherInto(data, bytes, 0);
    const op = this.start(src, counters);
    const fabric = this.fabric;
    fabric.kernel.schedule(this.charge(), () => {
      if (!live(op)) return;
      const arrival = fabric.send(src.node, op.dst.node, length, fabric.kernel.now);
      this.originReusable(op);
      fabric.kernel.schedule(arrival, () => {
        if (!live(op)) return;
        const dst = op.dst;
        const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, length, MemAccess.REMOTE_WRITE);
        if (typeof grant === 'string') return nak(fabric, op, grant, `put of ${length} bytes refused by ${dst.ia.address}'s window`);
        grant.bytes.set(bytes, grant.start);
        fabric.kernel.schedule(fabric.receive(dst.node, length, fabric.kernel.now), () => {
          if (!live(op)) return;
          dst.ia.am.targetArrived(op);
          ack(fabric, op);
        });
      });
    });
  }

  get(target: Endpoint, into: Iov, remote: RmrTriplet, counters?: AmCounters): void {
    const src = this.connected(target);
    const length = checkIov(into, 'into', src.pz, MemAccess.LOCAL_WRITE, MAX_IOV);
    requireRemote(remote);
    checkCounters(counters);
    const op = this.start(src, counters);
    const fabric = this.fabric;
    fabric.kernel.schedule(this.charge(), () => {
      if (!live(op)) return;
      fabric.kernel.schedule(fabric.send(src.node, op.dst.node, 0, fabric.kernel.now), () => {
        if (!live(op)) return;
        const dst = op.dst;
        const handled = fabric.receive(dst.node, 0, fabric.kernel.now);
        const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, length, MemAccess.REMOTE_READ);
        if (typeof grant === 'string') return nak(fabric, op, grant, `get of ${length} bytes refused by ${dst.ia.address}'s window`, handled);
        // The target's HAL copies the memory out now; the origin sees the bytes when they arrive.
        const bytes = grant.bytes.slice(grant.start, grant.start + length);
        const replied = fabric.send(dst.node, src.node, length, handled);
        fabric.kernel.schedule(handled, () => {
          if (live(op)) dst.ia.am.targetArrived(op);
        });
        fabric.kernel.schedule(replied, () => {
          if (!live(op)) return;
          new IovWriter(into).write(bytes);
          fabric.kernel.schedule(fabric.receive(src.node, length, fabric.kernel.now), () => {
            if (!live(op)) return;
            (op.counters?.origin as LapiAmCounter | undefined)?.increment();
            (op.counters?.completion as LapiAmCounter | undefined)?.increment();
          });
        });
      });
    });
  }

  rmw(): Promise<bigint> {
    throw new DatError(DatStatus.NOT_IMPLEMENTED, 'active-messages rmw (LAPI_Rmw) is not implemented by the lapi provider', { argument: 'rmw' });
  }

  fence(): Promise<void> {
    throw new DatError(DatStatus.NOT_IMPLEMENTED, 'active-messages fence (LAPI_Fence) is not implemented by the lapi provider', { argument: 'fence' });
  }

  // ---- the target side (called on the target IA's extension) ---------------------------------

  /** The header handler at the first packet: the placement, with the data in it; undefined when the message is dropped. */
  place(dst: LapiEndpoint, id: number, uhdr: Uint8Array, bytes: Uint8Array, source: number): AmPlacement | undefined {
    const handler = this.handlers.get(id);
    if (handler === undefined) return this.dropped(dst, DatStatus.INVALID_PARAMETER, `amsend from task ${source}: no header handler ${id} is registered at ${this.owner.address}; the message was dropped`);
    let placement: AmPlacement | undefined;
    try {
      placement = handler(uhdr, bytes.length, source);
    } catch (e) {
      return this.dropped(dst, DatStatus.INTERNAL_ERROR, `amsend from task ${source}: header handler ${id} threw (${String(e)}); the message was dropped`);
    }
    if (placement === undefined) {
      if (bytes.length === 0) return { iov: [] };
      return this.dropped(dst, DatStatus.LENGTH_ERROR, `amsend from task ${source}: header handler ${id} returned no placement for ${bytes.length} bytes; the message was dropped`);
    }
    let room: number;
    try {
      room = checkIov(placement.iov, 'placement.iov', dst.pz, MemAccess.LOCAL_WRITE, MAX_IOV);
    } catch (e) {
      return this.dropped(dst, DatStatus.INVALID_PARAMETER, `amsend from task ${source}: header handler ${id} returned a bad placement (${(e as Error).message}); the message was dropped`);
    }
    if (room < bytes.length) {
      return this.dropped(dst, DatStatus.LENGTH_ERROR, `amsend from task ${source}: header handler ${id} placed ${bytes.length} bytes in ${room} bytes (placement.iov must hold dataLength); the message was dropped`);
    }
    new IovWriter(placement.iov).write(bytes);
    return placement;
  }

  runCompletion(dst: LapiEndpoint, completion: NonNullable<AmPlacement['completion']>, uhdr: Uint8Array, source: number): void {
    try {
      completion(uhdr, source);
    } catch (e) {
      dst.asyncError(DatStatus.INTERNAL_ERROR, `amsend from task ${source}: the completion handler threw (${String(e)})`);
    }
  }

  /** The data of `op` is in place (and its completion handler ran): the target counter, if any. */
  targetArrived(op: Op): void {
    const id = op.counters?.target;
    if (id === undefined) return;
    const counter = this.targetCounters.get(id);
    if (counter === undefined) return op.dst.asyncError(DatStatus.INVALID_PARAMETER, `target counter ${id} was never created at ${this.owner.address} (createCounter(${id})); not incremented`);
    counter.increment();
  }

  // ---- internals ------------------------------------------------------------------------------

  private dropped(dst: LapiEndpoint, status: DatStatus, message: string): undefined {
    dst.asyncError(status, message);
    return undefined;
  }

  /** `target` as a connected endpoint of this IA. */
  private connected(target: Endpoint): LapiEndpoint {
    if (!(target instanceof LapiEndpoint) || target.ia.am !== this) {
      throw new DatError(DatStatus.INVALID_HANDLE, `target must be an endpoint of ${this.owner.address}, got ${describeValue(target)}`, { argument: 'target' });
    }
    if (target.state !== EpState.CONNECTED || target.peer === undefined) {
      throw new DatError(DatStatus.INVALID_STATE, `target must be a connected endpoint, its state is ${target.state}`, { argument: 'target' });
    }
    return target;
  }

  private start(src: LapiEndpoint, counters: AmCounters | undefined): Op {
    const dst = src.peer!;
    return { src, dst, srcGen: src.gen, dstGen: dst.gen, counters };
  }

  /** The LAPI call's CPU cost, charged to the caller; returns when it is done. */
  private charge(): number {
    const clock = this.owner.clock;
    clock.charge(this.fabric.params.lapiCallNs);
    return Math.max(clock.nowNs, this.fabric.kernel.now);
  }

  /** The origin counter, when the HAL send path has copied the message out. */
  private originReusable(op: Op): void {
    const origin = op.counters?.origin as LapiAmCounter | undefined;
    if (origin === undefined) return;
    const kernel = this.fabric.kernel;
    kernel.schedule(Math.max(kernel.now, this.fabric.sendPathFreeAt(op.src.node)), () => origin.increment());
  }
}

function completionCost(fabric: LapiFabric, placed: AmPlacement): number {
  if (placed.completion === undefined) return 0;
  const p = fabric.params;
  return p.completionInContextNs + (placed.inContext === true ? 0 : p.completionThreadSwitchNs);
}

/** LAPI's internal acknowledgement: the completion counter at the origin once it is in. */
function ack(fabric: LapiFabric, op: Op): void {
  const kernel = fabric.kernel;
  kernel.schedule(fabric.send(op.dst.node, op.src.node, 0, kernel.now), () => {
    if (op.src.gen !== op.srcGen) return;
    kernel.schedule(fabric.receive(op.src.node, 0, kernel.now), () => {
      if (op.src.gen === op.srcGen) (op.counters?.completion as LapiAmCounter | undefined)?.increment();
    });
  });
}

/** A refusal at the target travels back like an ack and is raised at the origin; no counter moves. */
function nak(fabric: LapiFabric, op: Op, status: DatStatus, message: string, atNs = fabric.kernel.now): void {
  const kernel = fabric.kernel;
  kernel.schedule(fabric.send(op.dst.node, op.src.node, 0, atNs), () => {
    if (op.src.gen === op.srcGen) op.src.asyncError(status, message);
  });
}

function requireId(id: unknown, argument: string): asserts id is number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0 || id > 0xffff_ffff) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${argument} must be an integer in 0..4294967295, got ${describeValue(id)}`, { argument });
  }
}

function requireRemote(remote: unknown): asserts remote is RmrTriplet {
  const r = remote as RmrTriplet | null | undefined;
  if (typeof r !== 'object' || r === null || typeof r.rmrContext !== 'bigint' || typeof r.targetOffset !== 'number' || !Number.isSafeInteger(r.targetOffset) || r.targetOffset < 0) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `remote must be an RMR triplet { rmrContext: bigint, targetOffset: integer >= 0, length }, got ${describeValue(remote)}`, { argument: 'remote' });
  }
}

function checkCounters(counters: unknown): void {
  if (counters === undefined) return;
  if (typeof counters !== 'object' || counters === null) throw new DatError(DatStatus.INVALID_PARAMETER, `counters must be { origin?, completion?, target? }, got ${describeValue(counters)}`, { argument: 'counters' });
  const c = counters as AmCounters;
  for (const name of ['origin', 'completion'] as const) {
    if (c[name] !== undefined && !(c[name] instanceof LapiAmCounter)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `counters.${name} must be a counter from createCounter(), got ${describeValue(c[name])}`, { argument: `counters.${name}` });
    }
  }
  if (c.target !== undefined) requireId(c.target, 'counters.target');
}
