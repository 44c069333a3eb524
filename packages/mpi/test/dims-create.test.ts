import { describe, expect, it } from 'vitest';
import { ErrorClass } from '../src/api/errors.js';
import { dimsCreate } from '../src/topo/dims-create.js';

describe('dimsCreate (MPI_Dims_create)', () => {
  it('fills the free entries as evenly as possible, non-increasing, keeping the fixed ones', () => {
    expect(dimsCreate(6, [0, 0])).toEqual([3, 2]);
    expect(dimsCreate(16, [0, 0, 0])).toEqual([4, 2, 2]);
    expect(dimsCreate(36, [0, 0])).toEqual([6, 6]);
    expect(dimsCreate(30, [0, 0, 0])).toEqual([5, 3, 2]);
    expect(dimsCreate(12, [0, 3, 0])).toEqual([2, 3, 2]);
    expect(dimsCreate(1, [0, 0])).toEqual([1, 1]);
    expect(dimsCreate(1, [])).toEqual([]);
  });

  it('a large prime in two dimensions (divisors only, no scan to n)', () => {
    expect(dimsCreate(2_147_483_647, [0, 0])).toEqual([2_147_483_647, 1]);
    expect(dimsCreate(1 << 30, [0, 0, 0])).toEqual([1024, 1024, 1024]);
  });

  it('does not change its argument', () => {
    const dims = [0, 2];
    dimsCreate(8, dims);
    expect(dims).toEqual([0, 2]);
  });

  it('ERR_DIMS when the fixed entries do not divide n or are negative; ERR_ARG for n < 1', () => {
    expect(() => dimsCreate(10, [3, 0])).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_DIMS, argument: 'dims' }));
    expect(() => dimsCreate(6, [2, 2])).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_DIMS, argument: 'dims' }));
    expect(() => dimsCreate(5, [])).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_DIMS, argument: 'dims' }));
    expect(() => dimsCreate(6, [0, -1])).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_DIMS, argument: 'dims[1]' }));
    expect(() => dimsCreate(0, [0])).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_ARG, argument: 'n' }));
    expect(() => dimsCreate(4, 'x' as never)).toThrow(expect.objectContaining({ errorClass: ErrorClass.ERR_DIMS, argument: 'dims' }));
  });
});
