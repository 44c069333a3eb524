/** Datatypes (docs/mpi-design.md): type maps, their compiled gather/scatter programs, buffer views. */
export { Datatype, type BasicKind, type Combiner, type TypeContents } from './datatype.js';
export { DISTRIBUTE_DFLT_DARG, ORDER_CODES, DISTRIBUTION_CODES, type ArrayOrder, type Distribution } from './array-types.js';
export { datatypeOf } from './default-type.js';
export { bufferBytes } from './buffers.js';
export { packRange, unpackRange, segments, elementRegion, type GatherProgram } from './gather-program.js';
