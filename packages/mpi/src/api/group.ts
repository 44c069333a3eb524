import { PROC_NULL, UNDEFINED } from './constants.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import { expandRanges, type RankRange } from './group-ranges.js';

/** `compare` result (MPI_IDENT): the same group, or the same communicator. */
export const IDENT = 0;
/** `Comm.compare` result (MPI_CONGRUENT): two communicators over the same members in the same order. */
export const CONGRUENT = 1;
/** `compare` result (MPI_SIMILAR): the same members in another order. */
export const SIMILAR = 2;
/** `compare` result (MPI_UNEQUAL): different members. */
export const UNEQUAL = 3;

/**
 * An ordered set of processes (MPI_Group), held as their world ranks. Immutable: every operation
 * returns a new group. `rank` is this process's rank in the group, or UNDEFINED.
 */
export class Group {
  readonly #members: readonly number[];
  /** World rank -> group rank; undefined for a world group, whose group ranks are its world ranks. */
  readonly #index: ReadonlyMap<number, number> | undefined;
  /** This process's world rank; -1 in `Group.EMPTY`, which belongs to no process. */
  readonly #me: number;
  #freed = false;

  /** @internal Use `comm.group`, `Group.EMPTY` and the operations below. */
  constructor(worldRanks: readonly number[], myWorldRank: number, isWorld = false) {
    this.#members = isWorld ? worldRanks : Object.freeze([...worldRanks]);
    this.#index = isWorld ? undefined : new Map(worldRanks.map((w, i) => [w, i]));
    this.#me = myWorldRank;
  }

  /**
   * @internal The group of world ranks 0 … size-1 as `myWorldRank` sees it. Every rank of a
   * simulated job lives in this process: they share one frozen member list and keep no index, so
   * a world group costs each rank a few words, not two tables of the job's size.
   */
  static world(size: number, myWorldRank: number): Group {
    let members = WORLD_MEMBERS.get(size);
    if (members === undefined) {
      members = Object.freeze(Array.from({ length: size }, (_, r) => r));
      WORLD_MEMBERS.set(size, members);
    }
    return new Group(members, myWorldRank, true);
  }

  /** This group's rank of world rank `w`, or undefined when `w` is not a member. */
  #rankOf(w: number): number | undefined {
    if (this.#index !== undefined) return this.#index.get(w);
    return Number.isInteger(w) && w >= 0 && w < this.#members.length ? w : undefined;
  }

  #has(w: number): boolean {
    return this.#rankOf(w) !== undefined;
  }

  /** The group with no members (MPI_GROUP_EMPTY); what every operation that leaves no one returns. */
  static get EMPTY(): Group {
    return EMPTY;
  }

  /** A new group of `worldRanks` for this process (`Group.EMPTY` when none). */
  #derive(worldRanks: readonly number[], other?: Group): Group {
    if (worldRanks.length === 0) return Group.EMPTY;
    const me = this.#me >= 0 || other === undefined ? this.#me : other.#me;
    return new Group(worldRanks, me);
  }

  /**
   * Release the group (MPI_Group_free): later use is ERR_GROUP. Communicators made from it are
   * unaffected. Freeing `Group.EMPTY` does nothing (as MPICH allows), so a program may free
   * every group it was handed.
   */
  free(): void {
    if (this === Group.EMPTY) return;
    requireGroup(this, 'group');
    this.#freed = true;
  }

  get freed(): boolean {
    return this.#freed;
  }

  /** The group of the ranks `ranges` name, in that order (MPI_Group_range_incl); see `expandRanges`. */
  rangeIncl(ranges: readonly RankRange[]): Group {
    requireGroup(this, 'group');
    return this.incl(expandRanges(ranges, this.size, 'ranges'));
  }

  /** This group without the ranks `ranges` name (MPI_Group_range_excl). */
  rangeExcl(ranges: readonly RankRange[]): Group {
    requireGroup(this, 'group');
    return this.excl(expandRanges(ranges, this.size, 'ranges'));
  }

  get size(): number {
    return this.#members.length;
  }

  /** This process's rank in the group, or UNDEFINED. */
  get rank(): number {
    return this.#rankOf(this.#me) ?? UNDEFINED;
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
    requireGroup(this, 'group');
    const list = this.#distinctRanks(ranks, 'ranks');
    return this.#derive(list.map((r) => this.#members[r]));
  }

  /** This group without `ranks` (MPI_Group_excl). */
  excl(ranks: readonly number[]): Group {
    requireGroup(this, 'group');
    const out = new Set(this.#distinctRanks(ranks, 'ranks'));
    return this.#derive(this.#members.filter((_, r) => !out.has(r)));
  }

  /** This group's members, then `other`'s not in it (MPI_Group_union). */
  union(other: Group): Group {
    requireGroup(this, 'group');
    requireGroup(other, 'other');
    return this.#derive([...this.#members, ...other.#members.filter((w) => !this.#has(w))], other);
  }

  /** Members of both, in this group's order (MPI_Group_intersection). */
  intersection(other: Group): Group {
    requireGroup(this, 'group');
    requireGroup(other, 'other');
    return this.#derive(this.#members.filter((w) => other.#has(w)), other);
  }

  /** Members of this group not in `other` (MPI_Group_difference). */
  difference(other: Group): Group {
    requireGroup(this, 'group');
    requireGroup(other, 'other');
    return this.#derive(this.#members.filter((w) => !other.#has(w)), other);
  }

  /** The ranks in `other` of this group's `ranks` (UNDEFINED where absent; PROC_NULL stays). */
  translateRanks(ranks: readonly number[], other: Group): number[] {
    requireGroup(this, 'group');
    requireGroup(other, 'other');
    return this.#rankList(ranks, 'ranks', true).map((r) => (r === PROC_NULL ? PROC_NULL : (other.#rankOf(this.#members[r]) ?? UNDEFINED)));
  }

  /** IDENT (same members, same order), SIMILAR (same members) or UNEQUAL. */
  compare(other: Group): number {
    requireGroup(this, 'group');
    requireGroup(other, 'other');
    if (this.size !== other.size) return UNEQUAL;
    if (this.#members.every((w, i) => other.#members[i] === w)) return IDENT;
    return this.#members.every((w) => other.#has(w)) ? SIMILAR : UNEQUAL;
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

/** World member lists by job size, shared by every rank in this process (see `Group.world`). */
const WORLD_MEMBERS = new Map<number, readonly number[]>();
const EMPTY = new Group([], -1);

/** A live group: ERR_GROUP for anything else, or a freed one. */
export function requireGroup(group: unknown, argument: string): asserts group is Group {
  if (!(group instanceof Group)) throw new MpiError(ErrorClass.ERR_GROUP, `${argument} must be a Group, got ${describeValue(group)}`, { argument });
  if (group.freed) throw new MpiError(ErrorClass.ERR_GROUP, `${argument} has been freed`, { argument });
}
