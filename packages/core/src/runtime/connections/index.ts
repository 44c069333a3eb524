export { startConnections } from './connections.js';
export { ConnectionService, type ConnectionServiceInit } from './connection-service.js';
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_KEY_PREFIX, type Connections, type ConnectionsOptions } from './types.js';
export { LinkState, PeerLink, transitionLink, type LinkInput } from './peer-link.js';
export {
  decodeListenAddress,
  decodeWiringRequest,
  encodeListenAddress,
  encodeWiringRequest,
  WIRING_MAGIC,
  WIRING_PRIVATE_DATA_BYTES,
  WIRING_VERSION,
  type ListenAddress,
  type WiringKind,
  type WiringRequest,
} from './wiring.js';
