/**
 * Names of one parameter in its three spellings: the dotted key (`mpi.eagerLimit`), the
 * environment variable (`DAPL_MPI_EAGER_LIMIT`) and the flag (`--mpi.eagerLimit`).
 */

/** Names already converted: every simulated rank resolves the same sections (16,384 ranks, dozens of names each). */
const screamingSnakes = new Map<string, string>();
const MAX_CACHED_NAMES = 4096;

/** `eagerLimit` → `EAGER_LIMIT`; `rdmaMTU` → `RDMA_MTU`; `tcp-0` → `TCP_0`. */
export function toScreamingSnake(name: string): string {
  let converted = screamingSnakes.get(name);
  if (converted !== undefined) return converted;
  converted = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
  if (screamingSnakes.size < MAX_CACHED_NAMES) screamingSnakes.set(name, converted);
  return converted;
}

/** `EAGER_LIMIT` → `eagerLimit`. */
export function fromScreamingSnake(name: string): string {
  return name.toLowerCase().replace(/_+([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** `mpi` + `eagerLimit` → `mpi.eagerLimit`; a top-level key has no section. */
export function parameterKey(section: string | undefined, name: string): string {
  return section === undefined ? name : `${section}.${name}`;
}

/** `mpi` + `eagerLimit` → `DAPL_MPI_EAGER_LIMIT`; `undefined` + `provider` → `DAPL_PROVIDER`. */
export function environmentName(section: string | undefined, name: string): string {
  const tail = toScreamingSnake(name);
  return section === undefined ? `DAPL_${tail}` : `DAPL_${toScreamingSnake(section)}_${tail}`;
}

/** The prefix of every environment variable of a section: `DAPL_MPI_`. */
export function environmentPrefix(section: string): string {
  return `DAPL_${toScreamingSnake(section)}_`;
}
