/**
 * @packageDocumentation
 * What every provider shares (libfabric's `prov/util`): the endpoint state machine, the EVD
 * queue with push notification, the one audited RMR table, memory objects, iov helpers,
 * base classes for IA / endpoint / PSP that own argument checks and DTO bookkeeping, a credit
 * window, and `notSupported(op)`. A provider fills a few transport hooks. A simulated provider
 * builds on `sim/` (`createSimProvider`, `SimFabric`, `SimIa`, `SimEndpoint`, `SimPsp`) and fills
 * its model, parameters and the timing of its data path.
 *
 * @example
 * ```ts
 * import { IaBase, EndpointBase } from '@dapl/core/provider-kit';
 * class MyEndpoint extends EndpointBase {
 *   protected submit(req) { ... this.completeRequest(); }
 *   // startConnect, cancelConnect, startDisconnect, teardown
 * }
 * ```
 */
export { Fifo } from '../util/fifo.js';
export { notSupported } from './not-supported.js';
export { transitionEp, type EpInput } from './ep-state.js';
export { CreditWindow } from './credit-window.js';
export { describe as describeValue, invalidParameter, requireBytes, requireFunction, requireHandle, requireInteger, requireObject } from './validate.js';
export { EvdQueue } from './evd-queue.js';
export { RmrTable, REMOTE_RIGHTS, type RmrWindow, type RemoteAccessGrant, type RemoteAccessResult } from './rmr-table.js';
export { KitPz, KitLmr, KitRmr, isKitLmr, requireAccess, viewOf } from './memory.js';
export { checkIov, copyIov, gatherInto, iovLength, IovWriter, takeIov } from './iov.js';
export { EndpointBase, type DtoRequest, type KitEvds, type PostedRecv, type RequestOp } from './endpoint-base.js';
export { KitSrq } from './srq.js';
export { ConnectionRequestBase, PspBase } from './psp-base.js';
export { ListenerTable, type ConnectRefusal } from './listener-table.js';
export { BoundPsp } from './bound-psp.js';
export { PairingConnectionRequest, type PairedEndpoint } from './pairing-connection-request.js';
export { IaBase, effectiveCapabilities, type IaBaseInit } from './ia-base.js';
export { resolveProviderParameters } from './parameters.js';
export { routeSourceAddress, firstExternalIpv4 } from '../util/route-source.js';
export {
  FrameDecoder,
  FrameDecoderState,
  FrameError,
  isFrameError,
  PayloadCollector,
  type FrameConsumer,
  type FrameFormat,
  type FrameSink,
} from './frame-decoder.js';
export { concatBytes, constantTimeEqual, isU32, readU16, readU32, readU64, U64_MAX, writeU16, writeU32, writeU64 } from './bytes.js';
export { defer } from '../util/defer.js';
export {
  createSimProvider,
  deliverable,
  DTO_SUCCESS,
  EvdWaits,
  initiatorDone,
  PER_IA_PARAMETER_NAMES,
  resumeFlight,
  SimConnectionRequest,
  SimDataPathBase,
  SimEndpoint,
  SimFabric,
  SimIa,
  type DtoOutcome,
  type EvdRole,
  type FlightPath,
  type InitiatorDone,
  type ReadResponse,
  type SimDataPath,
  type SimFlight,
  type TargetDone,
  type SimIaPlace,
  type SimParameters,
  type SimProvider,
  type SimProviderDefinition,
  type SimProviderOptions,
  type SimPsp,
} from './sim/index.js';
