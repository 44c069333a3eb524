/**
 * DI tokens of core: `export const X = Symbol('X')` paired with a type of the same name
 * (Theia's convention). `DaplConfig` and `ProviderRegistry` are classes and serve as their own
 * tokens (inversify takes a class as a service identifier), so one name is both class and token.
 */
import type { Logger } from 'pino';
import type { Endpoint } from '../dat/endpoint.js';
import type { InterfaceAdapter as DatInterfaceAdapter } from '../dat/ia.js';
import type { ProtectionZone } from '../dat/pz.js';
import type { SharedReceiveQueue } from '../dat/srq.js';

export { DaplConfig } from '../config/dapl-config.js';
export { ProviderRegistry } from '../registry/provider-registry.js';
// Tokens paired with an interface of the same name are declared beside it, so the pair is documented once.
export { LoggerFactory } from '../logging/logger-factory.js';
export { Runtime } from '../runtime/runtime.js';
export { DatProvider } from '../dat/provider.js';
export { InterfaceAdapter } from '../dat/ia.js';

/** The process's pino root logger. */
export const RootLogger: unique symbol = Symbol('RootLogger');
export type RootLogger = Logger;

/**
 * A contribution point for upper libraries: run on every new endpoint to a peer before it connects
 * (the rdma device pre-posts its eager receive buffers there). `startJob` runs every one bound, in
 * binding order.
 */
export const EndpointPreparer: unique symbol = Symbol('EndpointPreparer');
export type EndpointPreparer = (ep: Endpoint, peer: number) => void;

/**
 * A contribution point for an upper library: given the connection service's IA and zone, a shared
 * receive queue every peer endpoint is created on, or undefined (the rdma device's SRQ eager pool).
 * `startJob` uses the first one bound; the connection service frees the queue on close.
 */
export const SharedReceiveQueueMaker: unique symbol = Symbol('SharedReceiveQueueMaker');
export type SharedReceiveQueueMaker = (ia: DatInterfaceAdapter, pz: ProtectionZone) => SharedReceiveQueue | undefined;
