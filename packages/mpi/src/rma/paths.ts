import type { RequestCore } from '../adi/request-core.js';
import { byteSpan, type BufferSpan } from '../adi/transfer.js';
import { ErrorClass, MpiError } from '../api/errors.js';
import { Status } from '../api/status.js';
import { Op } from '../coll/op.js';
import { packRange, unpackRange, type GatherProgram } from '../datatype/index.js';
import type { AmRoute } from './am-path.js';
import type { RmaChannel } from './channel.js';
import type { RmaOperation } from './operation.js';
import type { Outstanding } from './outstanding.js';
import { ELEMENT_TYPES, INLINE_BYTES, INLINE_PROGRAM_BYTES, NO_INDEX, OPS, RmaFlag, RmaKind, RmaTag, emptyRmaHeader, programBytes, writeProgram, type RmaHeader } from './wire.js';

/** What a path works with at the origin: the window's messages and the LAPI one-sided patent's local counters. */
export interface OriginState {
  readonly channel: RmaChannel;
  readonly outstanding: Outstanding;
  /** Operations sent per target as messages (the target counts them as applied), cumulative. */
  readonly issued: Float64Array;
  /** Per target: messages without a reply sent since its last confirmation (a flush must ask). */
  readonly unconfirmed: Uint32Array;
  /** Operations per path, for tests and tools. */
  readonly uses: Record<string, number>;
  /** The window's route over active messages, where the provider has them. */
  am: AmRoute | undefined;
}

/**
 * One way to carry out one-sided operations (a contribution point: `RMA_PATHS` in order of
 * preference, the first that accepts an operation carries it out). Adding a transport's protocol
 * (an active-message one, a hardware-atomics one) is adding an entry.
 */
export interface RmaPath {
  readonly name: string;
  /** One line for `win.protocolInfo()`. */
  readonly describes: string;
  accepts(op: RmaOperation, state: OriginState): boolean;
  start(op: RmaOperation, state: OriginState): void;
}

const dataSize = (op: RmaOperation): number => op.span.program.size * op.span.count;

/**
 * Counts `parts` pieces of `op` as outstanding (`ordered`: they land before any message sent after
 * them); `op.local` completes when the last is done.
 */
function pieces(op: RmaOperation, state: OriginState, parts: number, ordered = false): (error?: MpiError) => void {
  for (let i = 0; i < parts; i++) state.outstanding.add(op.target, ordered);
  let left = parts;
  let failure: MpiError | undefined;
  return (error) => {
    failure ??= error;
    state.outstanding.done(op.target, error, ordered);
    if (--left > 0 || op.local === undefined) return;
    if (failure !== undefined) op.local.fail(failure);
    else op.local.complete(Status.EMPTY);
  };
}

function completeAtOnce(op: RmaOperation): void {
  op.local?.complete(Status.EMPTY);
}

/** The origin's data packed (its own bytes when contiguous). */
function packed(span: BufferSpan, state: OriginState): { bytes: Uint8Array; at: number } {
  if (span.program.contiguous) return { bytes: span.bytes, at: span.offset + span.program.minOffset };
  const out = new Uint8Array(span.size);
  packRange(span.program, span.count, span.bytes, span.offset, 0, out, 0, span.size);
  state.channel.clock.chargeCopy(span.size);
  return { bytes: out, at: 0 };
}

function unpackInto(span: BufferSpan, data: Uint8Array, state: OriginState): void {
  if (span.size > 0) unpackRange(span.program, span.count, span.bytes, span.offset, 0, data, 0, span.size);
  state.channel.clock.chargeCopy(span.size);
}

/** Nothing to move (0 bytes, no fetch): complete at once. */
export const EMPTY_PATH: RmaPath = {
  name: 'empty',
  describes: '0-byte put, get and accumulate: complete at once, nothing sent',
  accepts: (op) => dataSize(op) === 0 && op.result === undefined,
  start: (op) => completeAtOnce(op),
};

/** The target is this rank: applied to the window here and now. */
export const SELF_PATH: RmaPath = {
  name: 'self',
  describes: 'the rank itself: applied to its window at once (copies charged)',
  accepts: (op, state) => op.target === state.channel.rank,
  start(op, state) {
    const window = state.channel.window;
    const size = dataSize(op);
    switch (op.kind) {
      case RmaKind.PUT: {
        const { bytes, at } = packed(op.origin, state);
        window.scatter(op.span, bytes, at);
        break;
      }
      case RmaKind.GET:
        unpackInto(op.origin, window.gather(op.span), state);
        break;
      case RmaKind.COMPARE_AND_SWAP: {
        const value = packed(op.origin, state);
        const compare = packed(op.compare!, state);
        const old = window.compareAndSwap(op.span.offset + op.span.program.minOffset, size, value.bytes.subarray(value.at), compare.bytes.subarray(compare.at));
        unpackInto(op.result!, old, state);
        break;
      }
      default: {
        const { bytes, at } = op.op === Op.NO_OP ? { bytes: new Uint8Array(0), at: 0 } : packed(op.origin, state);
        const old = window.accumulate(op.span, bytes, at, op.op!, op.element!, op.result !== undefined);
        if (old !== undefined) unpackInto(op.result!, old, state);
      }
    }
    completeAtOnce(op);
  },
};

/**
 * Contiguous put and get where the device offers direct RDMA and the target's window is exposed:
 * one RDMA write or read between the origin's memory and the target's window, no target CPU
 * (Chai, Noronha, Gupta, Brown, Panda: MPI-2 over uDAPL). The write's completion is the target's.
 */
export const RDMA_DIRECT_PATH: RmaPath = {
  name: 'rdma-direct',
  describes: 'contiguous put / get: one RDMA write / read straight between the origin buffer and the target window (no target CPU)',
  accepts(op, state) {
    const transport = state.channel.transport;
    if (transport === undefined || state.channel.remotes[op.target].triplet === undefined) return false;
    if (op.kind !== RmaKind.PUT && !(op.kind === RmaKind.GET && transport.canRead)) return false;
    return op.origin.program.contiguous && op.span.program.contiguous;
  },
  start(op, state) {
    const channel = state.channel;
    const size = dataSize(op);
    const base = channel.remotes[op.target].triplet!;
    const remote = { rmrContext: base.rmrContext, targetOffset: base.targetOffset + op.span.offset + op.span.program.minOffset, length: size };
    const from = op.origin.offset + op.origin.program.minOffset;
    const local = op.origin.bytes.subarray(from, from + size);
    const peer = channel.worldRanks[op.target];
    // A write the transport orders ahead of later messages needs no completion before PSCW's COMPLETE.
    const done = pieces(op, state, 1, op.kind === RmaKind.PUT && channel.transport!.writesPrecedeMessages(peer));
    const finish = (error: MpiError | undefined): void => done(error === undefined ? undefined : rangeOrTransport(error, op));
    if (op.kind === RmaKind.PUT) channel.transport!.write(peer, local, remote, finish);
    else channel.transport!.read(peer, local, remote, finish);
  },
};

function rangeOrTransport(error: MpiError, op: RmaOperation): MpiError {
  const argument = error.errorClass === ErrorClass.ERR_RMA_RANGE ? 'targetDisp' : undefined;
  return new MpiError(error.errorClass, `${RmaKind[op.kind].toLowerCase()} to rank ${op.target}: ${error.detail}`, { cause: error, argument });
}

/**
 * Everything else, as messages on the window's hidden context (IBM's patent on MPI-2 one-sided communication over LAPI): one control message
 * with the target's datatype program and, up to INLINE_BYTES, the data; larger data follows as a
 * second message the target receives straight into its window (a put) or applies (an
 * accumulate). Fetches post their reply's receive first. The target counts what it applied.
 */
export const MESSAGE_PATH: RmaPath = {
  name: 'messages',
  describes: `non-contiguous put / get (the target's datatype program in the header), accumulate (op and atom size in the header, applied atomically per element at the target), fetches: messages, data up to ${INLINE_BYTES} B in the header's message`,
  accepts: () => true,
  start(op, state) {
    const channel = state.channel;
    const t = op.target;
    const { h, program } = describe(op);
    let data = payload(op, state);
    h.dataBytes = data === undefined ? 0 : data.size;
    // The program rides in the header when it fits, else it leads the second message (before the data).
    const programLength = program === undefined ? 0 : programBytes(program);
    const programFollows = programLength > INLINE_PROGRAM_BYTES;
    if (program !== undefined) h.flags |= programFollows ? RmaFlag.PROGRAM_FOLLOWS : RmaFlag.PROGRAM;
    if (programFollows) {
      h.programBytes = programLength;
      data = byteSpan(programAndData(program!, data, state));
    }
    const follows = programFollows || h.dataBytes > INLINE_BYTES;
    if (follows) h.flags |= RmaFlag.DATA_FOLLOWS;
    const done = issue(op, state, follows ? 2 : 1);
    track(channel.sendControl(t, h, programFollows ? undefined : program, follows ? undefined : data), done);
    if (follows) track(channel.sendData(t, RmaTag.DATA, data!), done);
  },
};

/**
 * Count `op` as sent to its target as a message (the target counts it as applied; one that nothing
 * answers needs a flush to ask, unless `flushAsks` is false: the transport counts it back), post the receive of its reply if it fetches, and return the
 * completion of its `sends` sends.
 */
export function issue(op: RmaOperation, state: OriginState, sends: number, flushAsks = true): (error?: MpiError) => void {
  const t = op.target;
  const fetch = op.kind === RmaKind.GET ? op.origin : op.result;
  const done = pieces(op, state, sends + (fetch === undefined ? 0 : 1));
  state.issued[t]++;
  if (fetch === undefined) {
    if (flushAsks) state.unconfirmed[t]++;
  } else {
    const reply = state.channel.receive(t, RmaTag.REPLY, fetch);
    reply.onDone(() => done(reply.error ?? (reply.status!.count !== fetch.size ? refused(op) : undefined)));
  }
  return done;
}

/** An operation's header (kind, target span, op, atom type) and the target program it needs sent, if any. */
export function describe(op: RmaOperation): { h: RmaHeader; program: GatherProgram | undefined } {
  const h = emptyRmaHeader();
  h.kind = op.kind;
  h.count = op.span.count;
  h.offset = op.span.offset;
  const predefined = ELEMENT_TYPES.indexOf(op.element ?? op.targetType);
  const program = op.targetType.predefined && predefined >= 0 ? undefined : op.span.program;
  h.element = predefined >= 0 ? predefined : NO_INDEX;
  if (op.op !== undefined) h.op = OPS.indexOf(op.op);
  return { h, program };
}

/** The data an operation carries to its target (none for a get or NO_OP; value then compare for compare-and-swap). */
export function payload(op: RmaOperation, state: OriginState): BufferSpan | undefined {
  if (op.kind === RmaKind.COMPARE_AND_SWAP) return byteSpan(concat(op.origin, op.compare!, state));
  return op.kind === RmaKind.GET || op.op === Op.NO_OP ? undefined : op.origin;
}

/** A program too large for a header, then the packed data: the second message of an operation. */
function programAndData(program: GatherProgram, data: BufferSpan | undefined, state: OriginState): Uint8Array {
  const length = programBytes(program);
  const out = new Uint8Array(length + (data?.size ?? 0));
  writeProgram(new DataView(out.buffer), 0, program);
  if (data !== undefined && data.size > 0) {
    packRange(data.program, data.count, data.bytes, data.offset, 0, out, length, data.size);
    state.channel.clock.chargeCopy(data.size);
  }
  return out;
}

function track(request: RequestCore | undefined, done: (error?: MpiError) => void): void {
  if (request === undefined) return done();
  request.onDone(() => done(request.error));
}

function refused(op: RmaOperation): MpiError {
  return new MpiError(ErrorClass.ERR_RMA_RANGE, `rank ${op.target} refused a ${RmaKind[op.kind].toLowerCase()} at byte ${op.span.offset} of its window (outside it)`, { argument: 'targetDisp' });
}

function concat(a: BufferSpan, b: BufferSpan, state: OriginState): Uint8Array {
  const out = new Uint8Array(a.size + b.size);
  packRange(a.program, a.count, a.bytes, a.offset, 0, out, 0, a.size);
  packRange(b.program, b.count, b.bytes, b.offset, 0, out, a.size, b.size);
  state.channel.clock.chargeCopy(out.length);
  return out;
}
