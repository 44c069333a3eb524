/** MPI_IN_PLACE: pass as the send buffer (or, for scatter at the root, the receive buffer) where MPI allows it. */
export const IN_PLACE: unique symbol = Symbol.for('@dapl/mpi/IN_PLACE');
/** The type of `IN_PLACE`: a collective's send buffer that says "the receive buffer holds my data". */
export type InPlace = typeof IN_PLACE;
