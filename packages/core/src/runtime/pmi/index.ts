/** PMI (DESIGN §5, notes/pmi-hydra.md, notes/multi-host.md): the PMI-1 wire, client and server; the PMI-2 wire and client; the process mapping. */
export { parsePmiLine, formatPmiLine, isPmiWireError, PmiWireError, type PmiMessage, type PmiFieldsInput } from './wire.js';
export { PmiLineReader, PMI_MAX_LINE_BYTES, type PmiLine } from './line-reader.js';
export { HYDRA_PMI_LIMITS, type PmiLimits } from './limits.js';
export { readPmiEnvironment, hasPmiEnvironment, type PmiEnvironment } from './environment.js';
export type { PmiIdentity } from './handshake.js';
export { PmiRuntime, type PmiRuntimeOptions } from './pmi-runtime.js';
export { PmiServer, type PmiServerOptions } from './pmi-server.js';
export {
  formatPmi2Command,
  formatPmi2Frame,
  parsePmi2Payload,
  isPmi2WireError,
  Pmi2FrameReader,
  Pmi2WireError,
  PMI2_MAX_FRAME_BYTES,
  PMI2_MAX_KEY_BYTES,
  PMI2_MAX_VALUE_BYTES,
  type Pmi2WireProblem,
  type Pmi2LengthStyle,
  type Pmi2FieldsInput,
} from './pmi2-wire.js';
export { Pmi2Runtime, PMI2_LIMITS, type Pmi2Identity } from './pmi2-runtime.js';
export { pmiVersionFor, PMI_VERSION_ENV, type PmiVersion } from './pmi-version.js';
export { PMI_AUTH_ENV, PMI_AUTH_SCHEME } from './pmi-port-auth.js';
export { parseProcessMapping, nodeOfEachRank, ranksSharingNode, localRanksFromMapping, formatProcessMapping, type ProcessMappingBlock } from './process-mapping.js';
