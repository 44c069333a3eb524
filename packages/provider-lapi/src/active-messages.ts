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
  /** Fences waiting for this operation. */
  fences: (() => void)[] | undefined;
}

/** The operations of `rmw`. */
const RMW_OPS = ['swap', 'compare-and-swap', 'fetch-and-add', 'fetch-and-or'] as const;
type RmwOp = (typeof RMW_OPS)[number];
/** Bytes of an rmw request on the wire (op, operands, target) and of its reply (the old value). */
const RMW_REQUEST_BYTES = 32;
const RMW_REPLY_BYTES = 8;

function live(op: Op): boolean {
  return op.src.gen === op.srcGen && op.dst.gen === op.dstGen;
}

/**
 * The `active-messages` extension of one lapi IA (Banikazemi et al. §3, §5.3): Amsend with user header
 * handlers that return the buffer the data is placed in, completion handlers (after a thread switch
 * unless in-context), LAPI's origin/target/completion counters, and Put/Get through an RMR window.
 * Every stage is a kernel event on the fabric's HAL paths and switch, as for DAT's DTOs (progress.ts).
 * Failures found at the target (an unknown handler id, a placement too small, a refused window) drop
 * the operation and raise an `async-error` on the connect EVD of the endpoint that sees them.
 */
export class LapiActiveMessages implements ActiveMessages {
  private readonly handlers = new Map<number, AmHeaderHandler>();
  private readonly targetCounters = new Map<number, LapiAmCounter>();
  /** Operations issued here whose completion at the target the origin has not yet learned (for fence). */
  private readonly inflight = new Set<Op>();

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
      if (!live(op)) return this.settle(op);
      fabric.send(src.node, op.dst.node, wire, fabric.kernel.now, () => {
        if (!live(op)) return this.settle(op);
        const am = op.dst.ia.am;
        const placed = am.place(op.dst, handler, header, bytes, src.node);
        // Dropped at the target: the origin learns it as it would an ack (no counter moves).
        if (placed === undefined) return this.settleAfterReply(op);
        const at = fabric.receive(op.dst.node, wire, fabric.kernel.now) + completionCost(fabric, placed);
        fabric.kernel.schedule(at, () => {
          if (!live(op)) return this.settle(op);
          if (placed.signal !== undefined) am.runSignal(op.dst, placed.signal, src.node);
          if (placed.completion !== undefined) am.runCompletion(op.dst, placed.completion, header, src.node);
          am.targetArrived(op);
          this.ack(op);
        });
      }, undefined);
      this.originReusable(op);
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
      if (!live(op)) return this.settle(op);
      fabric.send(src.node, op.dst.node, length, fabric.kernel.now, () => {
        if (!live(op)) return this.settle(op);
        const dst = op.dst;
        const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, length, MemAccess.REMOTE_WRITE);
        if (typeof grant === 'string') return this.nak(op, grant, `put of ${length} bytes refused by ${dst.ia.address}'s window`);
        grant.bytes.set(bytes, grant.start);
        fabric.kernel.schedule(fabric.receive(dst.node, length, fabric.kernel.now), () => {
          if (!live(op)) return this.settle(op);
          dst.ia.am.targetArrived(op);
          this.ack(op);
        });
      }, undefined);
      this.originReusable(op);
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
      if (!live(op)) return this.settle(op);
      fabric.send(src.node, op.dst.node, 0, fabric.kernel.now, () => {
        if (!live(op)) return this.settle(op);
        const dst = op.dst;
        const handled = fabric.receive(dst.node, 0, fabric.kernel.now);
        const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, length, MemAccess.REMOTE_READ);
        if (typeof grant === 'string') return this.nak(op, grant, `get of ${length} bytes refused by ${dst.ia.address}'s window`, handled);
        // The target's HAL copies the memory out now; the origin sees the bytes when they arrive.
        const bytes = grant.bytes.slice(grant.start, grant.start + length);
        fabric.kernel.schedule(handled, () => {
          if (live(op)) dst.ia.am.targetArrived(op);
        });
        fabric.send(dst.node, src.node, length, handled, () => {
          if (!live(op)) return this.settle(op);
          new IovWriter(into).write(bytes);
          fabric.kernel.schedule(fabric.receive(src.node, length, fabric.kernel.now), () => {
            this.settle(op);
            if (!live(op)) return;
            (op.counters?.origin as LapiAmCounter | undefined)?.increment();
            (op.counters?.completion as LapiAmCounter | undefined)?.increment();
          });
        }, undefined);
      }, undefined);
    });
  }

  /**
   * LAPI_Rmw: an atomic read-modify-write of a 4- or 8-byte word (little endian, signed, as
   * `remote.length` says) in the target's window, which must allow remote read and write. Resolves
   * with the word's previous value; a refused window rejects with the target's status.
   */
  rmw(target: Endpoint, op: RmwOp, remote: RmrTriplet, operand: bigint, compare?: bigint): Promise<bigint> {
    const src = this.connected(target);
    if (!RMW_OPS.includes(op)) throw new DatError(DatStatus.INVALID_PARAMETER, `op must be one of ${RMW_OPS.join(', ')}, got ${describeValue(op)}`, { argument: 'op' });
    requireRemote(remote);
    if (remote.length !== 4 && remote.length !== 8) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `remote.length must be 4 or 8 (the word rmw works on), got ${describeValue(remote.length)}`, { argument: 'remote.length' });
    }
    if (typeof operand !== 'bigint') throw new DatError(DatStatus.INVALID_PARAMETER, `operand must be a bigint, got ${describeValue(operand)}`, { argument: 'operand' });
    if (op === 'compare-and-swap' ? typeof compare !== 'bigint' : compare !== undefined) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `compare must be a bigint for compare-and-swap and absent otherwise, got ${describeValue(compare)}`, { argument: 'compare' });
    }
    const o = this.start(src, undefined);
    const fabric = this.fabric;
    return new Promise<bigint>((resolve, reject) => {
      const broken = () => {
        this.settle(o);
        reject(new DatError(DatStatus.CONNECTION_BROKEN, `rmw ${op} to ${o.dst.ia.address}: the connection was lost`));
      };
      fabric.kernel.schedule(this.charge(), () => {
        if (!live(o)) return broken();
        fabric.send(src.node, o.dst.node, RMW_REQUEST_BYTES, fabric.kernel.now, () => {
          if (!live(o)) return broken();
          const dst = o.dst;
          const handled = fabric.receive(dst.node, RMW_REQUEST_BYTES, fabric.kernel.now) + fabric.params.rmwNs;
          const grant = dst.ia.rmrTable.check(remote.rmrContext, dst.pz, remote.targetOffset, remote.length, MemAccess.REMOTE_READ | MemAccess.REMOTE_WRITE);
          if (typeof grant === 'string') {
            const message = `rmw ${op} on ${remote.length} bytes refused by ${dst.ia.address}'s window`;
            return fabric.send(dst.node, src.node, 0, handled, () => {
              this.settle(o);
              reject(new DatError(grant, message));
            }, undefined);
          }
          // Applied when the target's dispatcher handles it: nothing else touches the word between read and write.
          const old = applyRmw(grant.bytes, grant.start, remote.length, op, operand, compare);
          fabric.send(dst.node, src.node, RMW_REPLY_BYTES, handled, () => {
            if (o.src.gen !== o.srcGen) return broken();
            fabric.kernel.schedule(fabric.receive(src.node, RMW_REPLY_BYTES, fabric.kernel.now), () => {
              this.settle(o);
              resolve(old);
            });
          }, undefined);
        }, undefined);
      });
    });
  }

  /**
   * LAPI_Fence: resolves when every operation issued from this IA to `target` (or to anyone) before
   * the call has completed at its target and the origin has heard so (its ack, reply or refusal).
   */
  fence(target?: Endpoint): Promise<void> {
    const dst = target === undefined ? undefined : this.connected(target);
    const pending = [...this.inflight].filter((op) => dst === undefined || op.src === dst);
    this.owner.clock.charge(this.fabric.params.lapiCallNs);
    if (pending.length === 0) return Promise.resolve();
    let left = pending.length;
    return new Promise<void>((resolve) => {
      const one = () => {
        if (--left === 0) resolve();
      };
      for (const op of pending) (op.fences ??= []).push(one);
    });
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
    if (placement.signal !== undefined && typeof placement.signal !== 'function') {
      return this.dropped(dst, DatStatus.INVALID_PARAMETER, `amsend from task ${source}: header handler ${id} returned a placement whose signal is not a function; the message was dropped`);
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

  /** A predefined completion: part of the dispatcher's work on the message, charged nothing of its own. */
  runSignal(dst: LapiEndpoint, signal: () => void, source: number): void {
    try {
      signal();
    } catch (e) {
      dst.asyncError(DatStatus.INTERNAL_ERROR, `amsend from task ${source}: the predefined completion threw (${String(e)})`);
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
    const op: Op = { src, dst, srcGen: src.gen, dstGen: dst.gen, counters, fences: undefined };
    this.inflight.add(op);
    return op;
  }

  /** The origin knows `op` is over (completed, refused, or its connection gone): release its fences. */
  private settle(op: Op): void {
    if (!this.inflight.delete(op)) return;
    const fences = op.fences;
    op.fences = undefined;
    if (fences !== undefined) for (const release of fences) release();
  }

  /** Settle `op` when a reply from its target would reach the origin. */
  private settleAfterReply(op: Op): void {
    this.fabric.send(op.dst.node, op.src.node, 0, this.fabric.kernel.now, () => this.settle(op), undefined);
  }

  /** LAPI's internal acknowledgement: the completion counter at the origin once it is in. */
  private ack(op: Op): void {
    const fabric = this.fabric;
    const kernel = fabric.kernel;
    fabric.send(op.dst.node, op.src.node, 0, kernel.now, () => {
      if (op.src.gen !== op.srcGen) return this.settle(op);
      kernel.schedule(fabric.receive(op.src.node, 0, kernel.now), () => {
        this.settle(op);
        if (op.src.gen === op.srcGen) (op.counters?.completion as LapiAmCounter | undefined)?.increment();
      });
    }, undefined);
  }

  /** A refusal at the target travels back like an ack and is raised at the origin; no counter moves. */
  private nak(op: Op, status: DatStatus, message: string, atNs = this.fabric.kernel.now): void {
    this.fabric.send(op.dst.node, op.src.node, 0, atNs, () => {
      this.settle(op);
      if (op.src.gen === op.srcGen) op.src.asyncError(status, message);
    }, undefined);
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

/** Read, modify and write the word; returns its previous value. */
function applyRmw(bytes: Uint8Array, start: number, width: number, op: RmwOp, operand: bigint, compare: bigint | undefined): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, width);
  const old = width === 8 ? view.getBigInt64(0, true) : BigInt(view.getInt32(0, true));
  let next: bigint;
  switch (op) {
    case 'swap':
      next = operand;
      break;
    case 'compare-and-swap':
      next = old === compare ? operand : old;
      break;
    case 'fetch-and-add':
      next = old + operand;
      break;
    case 'fetch-and-or':
      next = old | operand;
      break;
  }
  if (width === 8) view.setBigInt64(0, BigInt.asIntN(64, next), true);
  else view.setInt32(0, Number(BigInt.asIntN(32, next)), true);
  return old;
}
