/** The PMI-1 simple protocol (DESIGN §5, notes/pmi-hydra.md): wire codec, client runtime, server. */
export { parsePmiLine, formatPmiLine, isPmiWireError, PmiWireError, type PmiMessage, type PmiFieldsInput } from './wire.js';
export { PmiLineReader, PMI_MAX_LINE_BYTES, type PmiLine } from './line-reader.js';
export { HYDRA_PMI_LIMITS, type PmiLimits } from './limits.js';
export { readPmiEnvironment, hasPmiEnvironment, type PmiEnvironment } from './environment.js';
export type { PmiIdentity } from './handshake.js';
export { PmiRuntime, type PmiRuntimeOptions } from './pmi-runtime.js';
export { PmiServer, type PmiServerOptions } from './pmi-server.js';
