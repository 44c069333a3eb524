/** Receive from any source (MPI_ANY_SOURCE). */
export const ANY_SOURCE = -1;
/** Receive with any tag (MPI_ANY_TAG). */
export const ANY_TAG = -1;
/** The null process: a send or receive with it completes at once and moves nothing (MPI_PROC_NULL). */
export const PROC_NULL = -2;
/** `split` colour for "not in any new communicator"; `getCount` when not a whole number of elements (MPI_UNDEFINED). */
export const UNDEFINED = -32766;
/** The largest tag (MPI_TAG_UB): tags travel as int32. */
export const TAG_UB = 0x7fffffff;
/** The root of an intercommunicator's rooted collective, passed by the root itself; the rest of its group passes PROC_NULL (MPI_ROOT). */
export const ROOT = -3;
