/** Datatypes (docs/mpi-design.md): type maps, their compiled gather/scatter programs, buffer views. */
export { Datatype, type BasicKind } from './datatype.js';
export { datatypeOf } from './default-type.js';
export { bufferBytes } from './buffers.js';
export { packRange, unpackRange, segments, elementRegion, type GatherProgram } from './gather-program.js';
