import { PROC_NULL, UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';

/** Results of `Group.compare` (MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL). */
export const IDENT = 0;
export const CONGRUENT = 1;
export const SIMILAR = 2;
export const UNEQUAL = 3;

/**
 * An ordered set of processes (MPI_Group), held as their world ranks. Immutable: every operation
 * returns a new group. `rank` is this process's rank in the group, or UNDEFINED.
 */
export class Group {
  readonly #members: readonly number[];
  readonly #index: ReadonlyMap<number, number>;
  readonly #me: number;

  /** @internal Use `comm.group` and the operations below. */
  constructor(worldRanks: readonly number[], myWorldRank: number) {
    this.#members = Object.freeze([...worldRanks]);
    this.#index = new Map(worldRanks.map((w, i) => [w, i]));
    this.#me = myWorldRank;
  }

  get size(): number {
    return this.#members.length;
  }

  /** This process's rank in the group, or UNDEFINED. */
  get rank(): number {
    return this.#index.get(this.#me) ?? UNDEFINED;
  }

  /** @internal World ranks in group order. */
  get worldRanks(): readonly number[] {
    return this.#members;
  }

  /** @internal */
  get myWorldRank(): number {
    return this.#me;
  }

  /** The group of `ranks` of this group, in that order (MPI_Group_incl). */
  incl(ranks: readonly number[]): Group {
    const list = this.#distinctRanks(ranks, 'ranks');
    return new Group(
      list.map((r) => this.#members[r]),
      this.#me,
    );
  }

  /** This group without `ranks` (MPI_Group_excl). */
  excl(ranks: readonly number[]): Group {
    const out = new Set(this.#distinctRanks(ranks, 'ranks'));
    return new Group(
      this.#members.filter((_, r) => !out.has(r)),
      this.#me,
    );
  }

  /** This group's members, then `other`'s not in it (MPI_Group_union). */
  union(other: Group): Group {
    requireGroup(other, 'other');
    return new Group([...this.#members, ...other.#members.filter((w) => !this.#index.has(w))], this.#me);
  }

  /** Members of both, in this group's order (MPI_Group_intersection). */
  intersection(other: Group): Group {
    requireGroup(other, 'other');
    return new Group(
      this.#members.filter((w) => other.#index.has(w)),
      this.#me,
    );
  }

  /** Members of this group not in `other` (MPI_Group_difference). */
  difference(other: Group): Group {
    requireGroup(other, 'other');
    return new Group(
      this.#members.filter((w) => !other.#index.has(w)),
      this.#me,
    );
  }

  /** The ranks in `other` of this group's `ranks` (UNDEFINED where absent; PROC_NULL stays). */
  translateRanks(ranks: readonly number[], other: Group): number[] {
    requireGroup(other, 'other');
    return this.#rankList(ranks, 'ranks', true).map((r) => (r === PROC_NULL ? PROC_NULL : (other.#index.get(this.#members[r]) ?? UNDEFINED)));
  }

  /** IDENT (same members, same order), SIMILAR (same members) or UNEQUAL. */
  compare(other: Group): number {
    requireGroup(other, 'other');
    if (this.size !== other.size) return UNEQUAL;
    if (this.#members.every((w, i) => other.#members[i] === w)) return IDENT;
    return this.#members.every((w) => other.#index.has(w)) ? SIMILAR : UNEQUAL;
  }

  #rankList(ranks: readonly number[], argument: string, allowProcNull = false): number[] {
    if (!Array.isArray(ranks)) throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an array of ranks, got ${describeValue(ranks)}`, { argument });
    return ranks.map((r, i) => {
      if (allowProcNull && r === PROC_NULL) return r;
      if (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r >= this.size) {
        throw new MpiError(ErrorClass.ERR_RANK, `${argument}[${i}] must be a rank in [0, ${this.size - 1}], got ${describeValue(r)}`, { argument: `${argument}[${i}]` });
      }
      return r;
    });
  }

  #distinctRanks(ranks: readonly number[], argument: string): number[] {
    const list = this.#rankList(ranks, argument);
    if (new Set(list).size !== list.length) throw new MpiError(ErrorClass.ERR_RANK, `${argument} must not name a rank twice`, { argument });
    return list;
  }
}

export function requireGroup(group: unknown, argument: string): asserts group is Group {
  if (!(group instanceof Group)) throw new MpiError(ErrorClass.ERR_GROUP, `${argument} must be a Group, got ${describeValue(group)}`, { argument });
}
