import { describe, expect, it } from 'vitest';
import { ErrorClass } from '../src/api/errors.js';
import { expandRanges } from '../src/api/group-ranges.js';
import { Group } from '../src/api/group.js';

describe('group ranges (MPI_Group_range_incl / _excl)', () => {
  it('expands triplets in order, with positive and negative strides, a wrong-way triplet naming none', () => {
    expect(expandRanges([[0, 6, 3]], 8, 'ranges')).toEqual([0, 3, 6]);
    expect(expandRanges([[7, 1, -3], [0, 0, 1]], 8, 'ranges')).toEqual([7, 4, 1, 0]);
    expect(expandRanges([[5, 2, 1]], 8, 'ranges')).toEqual([]);
    expect(expandRanges([], 8, 'ranges')).toEqual([]);
  });

  it('rejects stride 0, ends outside the group, overlaps and malformed triplets', () => {
    expect(() => expandRanges([[0, 3, 0]], 8, 'ranges')).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_ARG, argument: 'ranges[0]' }));
    expect(() => expandRanges([[0, 8, 1]], 8, 'ranges')).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_RANK, argument: 'ranges[0]' }));
    expect(() => expandRanges([[0, 4, 2], [4, 5, 1]], 8, 'ranges')).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_RANK, argument: 'ranges[1]' }));
    expect(() => expandRanges([[0, 1]], 8, 'ranges')).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_ARG, argument: 'ranges[0]' }));
    expect(() => expandRanges('0-3', 8, 'ranges')).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_ARG, argument: 'ranges' }));
  });

  it('rangeIncl / rangeExcl on a group; an empty result is Group.EMPTY; a freed group is ERR_GROUP', () => {
    const g = new Group([10, 11, 12, 13, 14], 12);
    const odd = g.rangeIncl([[1, 4, 2]]);
    expect(odd.worldRanks).toEqual([11, 13]);
    expect(g.rangeExcl([[0, 4, 2]]).worldRanks).toEqual([11, 13]);
    expect(g.rangeExcl([[0, 4, 1]])).toBe(Group.EMPTY);
    expect(Group.EMPTY.union(g).rank).toBe(2);
    odd.free();
    expect(() => odd.rangeIncl([[0, 0, 1]])).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_GROUP, argument: 'group' }));
    expect(() => g.union(odd)).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_GROUP, argument: 'other' }));
  });
});
