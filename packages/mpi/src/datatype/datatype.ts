import { ErrorClass, MpiError, describeValue } from '../api/errors.js';
import { BlockSink, compileProgram, packRange, elementRegion, unpackRange, type GatherProgram } from './gather-program.js';
import { bufferBytes } from './buffers.js';
import { DISTRIBUTION_CODES, ORDER_CODES, darrayLayout, requireOrder, subarrayLayout, type ArrayOrder, type Distribution } from './array-types.js';

/** The basic types a type map is made of (MPI's basic datatypes, in JavaScript's typed-array terms). */
export type BasicKind = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64' | 'byte' | 'complex64' | 'complex128' | 'bool';

/** Which constructor made a datatype (MPI_Type_get_envelope's combiner; 'named' for a predefined type). */
export type Combiner = 'named' | 'dup' | 'contiguous' | 'vector' | 'hvector' | 'indexed' | 'hindexed' | 'struct' | 'resized' | 'subarray' | 'darray';

/** The arguments a derived type was made with (MPI_Type_get_contents), in MPI's order for its combiner. */
export interface TypeContents {
  readonly integers: readonly number[];
  /** Byte displacements, strides, bounds. */
  readonly addresses: readonly number[];
  readonly datatypes: readonly Datatype[];
}

/** `count` consecutive copies of `type` starting `disp` bytes from the element's origin. */
interface Part {
  readonly disp: number;
  readonly count: number;
  readonly type: Datatype;
}

/** A basic value at `disp` in a predefined type. */
interface Leaf {
  readonly disp: number;
  readonly kind: BasicKind;
  readonly size: number;
}

interface Shape {
  readonly name: string;
  readonly parts: readonly Part[];
  readonly leaves?: readonly Leaf[];
  /** Explicit bounds (predefined types' padding, `resized`). */
  readonly lb?: number;
  readonly extent?: number;
  /** Which constructor and arguments (undefined: a predefined type). */
  readonly combiner?: Exclude<Combiner, 'named'>;
  readonly contents?: TypeContents;
}

/**
 * An MPI datatype: a type map (basic values at byte displacements) with an extent. Predefined types
 * are static members; derived ones come from the constructors and must be `commit()`ed before they
 * are used in a transfer, which compiles them into a `GatherProgram`. Struct types get no alignment
 * padding (as MPI_Type_create_struct without the implementation's epsilon): use `resized` for a C
 * struct's extent.
 */
export class Datatype {
  #name: string;
  /** Bytes of data (MPI_Type_size). */
  readonly size: number;
  readonly lb: number;
  readonly ub: number;
  readonly trueLb: number;
  readonly trueUb: number;
  /** The basic kind of every value, when there is only one (reductions); undefined for mixed types. */
  readonly uniformBasic: BasicKind | undefined;
  /** A predefined type (committed from the start, never freed). */
  readonly predefined: boolean;
  /** One of the MAXLOC/MINLOC pair types. */
  readonly isPair: boolean;
  /** A pair type's value kind (MAXLOC / MINLOC read it); undefined for other types. */
  readonly pairValue: BasicKind | undefined;
  readonly #shape: Shape;
  #committed: boolean;
  #freed = false;
  #flat: BlockSink | undefined;
  #program: GatherProgram | undefined;

  private constructor(shape: Shape, predefined: boolean, pairValue?: BasicKind) {
    this.#shape = shape;
    this.#name = shape.name;
    this.predefined = predefined;
    this.isPair = pairValue !== undefined;
    this.pairValue = pairValue;
    this.#committed = predefined;
    let size = 0;
    let lo = Infinity;
    let hi = -Infinity;
    let trueLo = Infinity;
    let trueHi = -Infinity;
    // The one basic kind of every value; null once two differ (or a part is itself mixed).
    let kind: BasicKind | null | undefined;
    const meet = (k: BasicKind | undefined): void => {
      if (kind === null) return;
      kind = k === undefined || (kind !== undefined && kind !== k) ? null : k;
    };
    for (const leaf of shape.leaves ?? []) {
      size += leaf.size;
      trueLo = Math.min(trueLo, leaf.disp);
      trueHi = Math.max(trueHi, leaf.disp + leaf.size);
      meet(leaf.kind);
    }
    if (shape.leaves !== undefined) {
      lo = 0;
      hi = trueHi;
    }
    for (const { disp, count, type } of shape.parts) {
      if (count === 0) continue;
      const spread = (count - 1) * type.extent;
      lo = Math.min(lo, disp + type.lb + Math.min(0, spread));
      hi = Math.max(hi, disp + type.ub + Math.max(0, spread));
      if (type.size > 0) {
        trueLo = Math.min(trueLo, disp + type.trueLb + Math.min(0, spread));
        trueHi = Math.max(trueHi, disp + type.trueUb + Math.max(0, spread));
        size += count * type.size;
        meet(type.uniformBasic);
      }
    }
    if (lo === Infinity) lo = hi = 0;
    if (trueLo === Infinity) trueLo = trueHi = 0;
    this.size = size;
    this.lb = shape.lb ?? lo;
    this.ub = shape.extent === undefined ? hi : this.lb + shape.extent;
    this.trueLb = trueLo;
    this.trueUb = trueHi;
    this.uniformBasic = kind ?? undefined;
  }

  /** Stride between consecutive elements (MPI_Type_get_extent). */
  get extent(): number {
    return this.ub - this.lb;
  }

  get trueExtent(): number {
    return this.trueUb - this.trueLb;
  }

  /** The name (MPI_Type_get_name): a predefined type's, or the constructor's call unless renamed. */
  get name(): string {
    return this.#name;
  }

  /** Rename a derived type (MPI_Type_set_name); predefined types keep theirs (ERR_TYPE). */
  set name(value: string) {
    if (this.predefined) throw new MpiError(ErrorClass.ERR_TYPE, `predefined datatype ${this.#name} cannot be renamed`, { argument: 'datatype' });
    if (typeof value !== 'string' || value.length > 127) throw new MpiError(ErrorClass.ERR_ARG, `name must be a string of at most 127 characters, got ${describeValue(value)}`, { argument: 'name' });
    this.#name = value;
  }

  /** Lower bound and extent (MPI_Type_get_extent). */
  getExtent(): { lb: number; extent: number } {
    return { lb: this.lb, extent: this.extent };
  }

  /** Where the data really lies: its lowest byte and span, bounds set by `resized` aside (MPI_Type_get_true_extent). */
  getTrueExtent(): { trueLb: number; trueExtent: number } {
    return { trueLb: this.trueLb, trueExtent: this.trueExtent };
  }

  /** The constructor and how many arguments of each kind it took (MPI_Type_get_envelope). */
  getEnvelope(): { combiner: Combiner; numIntegers: number; numAddresses: number; numDatatypes: number } {
    const c = this.#shape.contents;
    if (c === undefined) return { combiner: 'named', numIntegers: 0, numAddresses: 0, numDatatypes: 0 };
    return { combiner: this.#shape.combiner!, numIntegers: c.integers.length, numAddresses: c.addresses.length, numDatatypes: c.datatypes.length };
  }

  /**
   * The arguments this type was made with (MPI_Type_get_contents), in MPI's order: e.g. vector
   * [count, blocklength, stride] and [oldtype]; subarray [ndims, sizes…, subsizes…, starts…, order]
   * (order as `ORDER_CODES`). ERR_TYPE for a predefined type, which has none.
   */
  getContents(): { integers: number[]; addresses: number[]; datatypes: Datatype[] } {
    this.requireUsable('datatype');
    const c = this.#shape.contents;
    if (c === undefined) throw new MpiError(ErrorClass.ERR_TYPE, `${this.#name} is predefined: it has no contents (check getEnvelope().combiner first)`, { argument: 'datatype' });
    return { integers: [...c.integers], addresses: [...c.addresses], datatypes: [...c.datatypes] };
  }

  /** A new type with the same type map, committed if this is (MPI_Type_dup). */
  dup(): Datatype {
    this.requireUsable('datatype');
    const twin = new Datatype(
      { name: this.#name, parts: [{ disp: 0, count: 1, type: this }], lb: this.lb, extent: this.extent, combiner: 'dup', contents: { integers: [], addresses: [], datatypes: [this] } },
      false,
      this.pairValue,
    );
    return this.#committed ? twin.commit() : twin;
  }

  get committed(): boolean {
    return this.#committed;
  }

  get freed(): boolean {
    return this.#freed;
  }

  /** The compiled program of a committed type. */
  get program(): GatherProgram {
    if (!this.#committed) throw new MpiError(ErrorClass.ERR_TYPE, `datatype ${this.name} is not committed: call commit() before using it in a transfer`, { argument: 'datatype' });
    return (this.#program ??= compileProgram(this.#blocks(), this.size, this.extent, this.lb, this.trueLb, this.trueUb));
  }

  /** Compile for transfers (MPI_Type_commit). Idempotent; returns this. */
  commit(): this {
    this.requireUsable('datatype');
    this.#committed = true;
    return this;
  }

  /** Release (MPI_Type_free): later use is ERR_TYPE; types built from it stay valid. */
  free(): void {
    if (this.predefined) throw new MpiError(ErrorClass.ERR_TYPE, `predefined datatype ${this.name} cannot be freed`, { argument: 'datatype' });
    this.requireUsable('datatype');
    this.#freed = true;
    this.#program = undefined;
  }

  /** Throws ERR_TYPE if freed. */
  requireUsable(argument: string): void {
    if (this.#freed) throw new MpiError(ErrorClass.ERR_TYPE, `${argument} (${this.name}) has been freed`, { argument });
  }

  /** Throws ERR_TYPE unless committed (a transfer's check). */
  requireCommitted(argument: string): void {
    this.requireUsable(argument);
    if (!this.#committed) throw new MpiError(ErrorClass.ERR_TYPE, `${argument} (${this.name}) is not committed: call commit() first`, { argument });
  }

  /** Bytes `count` elements take packed (MPI_Pack_size). */
  packSize(count: number): number {
    return requireCount(count, 'count') * this.size;
  }

  /** Pack `incount` elements of `inbuf` into `outbuf` at `position` (MPI_Pack); returns the new position. */
  pack(inbuf: ArrayBufferView, incount: number, outbuf: Uint8Array, position: number): number {
    this.requireCommitted('datatype');
    const count = requireCount(incount, 'incount');
    const source = viewBytes(inbuf, 'inbuf');
    const out = requireBytes(outbuf, 'outbuf');
    const at = requirePosition(position, out.length);
    const program = this.program;
    const from = elementRegion(program, count, source, 'inbuf');
    const n = program.size * count;
    if (at + n > out.length) throw new MpiError(ErrorClass.ERR_TRUNCATE, `outbuf has ${out.length - at} bytes after position ${at}; packing needs ${n}`, { argument: 'outbuf' });
    packRange(program, count, from.bytes, from.offset, 0, out, at, n);
    return at + n;
  }

  /** Unpack `outcount` elements from `inbuf` at `position` into `outbuf` (MPI_Unpack); returns the new position. */
  unpack(inbuf: Uint8Array, position: number, outbuf: ArrayBufferView, outcount: number): number {
    this.requireCommitted('datatype');
    const source = requireBytes(inbuf, 'inbuf');
    const at = requirePosition(position, source.length);
    const count = requireCount(outcount, 'outcount');
    const target = viewBytes(outbuf, 'outbuf');
    const program = this.program;
    const into = elementRegion(program, count, target, 'outbuf');
    const n = program.size * count;
    if (at + n > source.length) throw new MpiError(ErrorClass.ERR_TRUNCATE, `inbuf has ${source.length - at} bytes after position ${at}; unpacking needs ${n}`, { argument: 'inbuf' });
    unpackRange(program, count, into.bytes, into.offset, 0, source, at, n);
    return at + n;
  }

  /** The byte blocks of one element, in type-map order, adjacent ones merged (memoized). */
  #blocks(): BlockSink {
    if (this.#flat !== undefined) return this.#flat;
    const sink = new BlockSink();
    for (const leaf of this.#shape.leaves ?? []) sink.add(leaf.disp, leaf.size);
    for (const { disp, count, type } of this.#shape.parts) {
      const child = type.#blocks();
      const ext = type.extent;
      // A child that is one block filling its extent repeats into one block.
      if (child.offsets.length === 1 && child.lengths[0] === ext && ext === type.size) {
        sink.add(disp + child.offsets[0], count * ext);
        continue;
      }
      for (let k = 0; k < count; k++) {
        const origin = disp + k * ext;
        for (let b = 0; b < child.offsets.length; b++) sink.add(origin + child.offsets[b], child.lengths[b]);
      }
    }
    this.#flat = sink;
    return sink;
  }

  // ---- predefined ---------------------------------------------------------------------------

  static readonly INT8 = Datatype.#basic('INT8', 'int8', 1);
  static readonly UINT8 = Datatype.#basic('UINT8', 'uint8', 1);
  static readonly INT16 = Datatype.#basic('INT16', 'int16', 2);
  static readonly UINT16 = Datatype.#basic('UINT16', 'uint16', 2);
  static readonly INT32 = Datatype.#basic('INT32', 'int32', 4);
  static readonly UINT32 = Datatype.#basic('UINT32', 'uint32', 4);
  static readonly INT64 = Datatype.#basic('INT64', 'int64', 8);
  static readonly UINT64 = Datatype.#basic('UINT64', 'uint64', 8);
  static readonly FLOAT32 = Datatype.#basic('FLOAT32', 'float32', 4);
  static readonly FLOAT64 = Datatype.#basic('FLOAT64', 'float64', 8);
  static readonly BYTE = Datatype.#basic('BYTE', 'byte', 1);
  /** MPI_C_FLOAT_COMPLEX: two float32 (real, imaginary); SUM and PROD apply. */
  static readonly C_FLOAT_COMPLEX = Datatype.#basic('C_FLOAT_COMPLEX', 'complex64', 8);
  /** MPI_C_DOUBLE_COMPLEX: two float64 (real, imaginary); SUM and PROD apply. */
  static readonly C_DOUBLE_COMPLEX = Datatype.#basic('C_DOUBLE_COMPLEX', 'complex128', 16);
  /** MPI_C_BOOL: one byte, 0 false, else true; LAND, LOR and LXOR apply. */
  static readonly C_BOOL = Datatype.#basic('C_BOOL', 'bool', 1);
  /** MPI_FLOAT_INT: float32 value, int32 index (C layout, extent 8). */
  static readonly FLOAT_INT = Datatype.#pair('FLOAT_INT', 'float32', 4, 4, 8);
  /** MPI_DOUBLE_INT: float64 value, int32 index at 8 (extent 16). */
  static readonly DOUBLE_INT = Datatype.#pair('DOUBLE_INT', 'float64', 8, 8, 16);
  /** MPI_LONG_INT: int64 value, int32 index at 8 (extent 16). */
  static readonly LONG_INT = Datatype.#pair('LONG_INT', 'int64', 8, 8, 16);
  /** MPI_2INT: int32 value, int32 index (extent 8). */
  static readonly TWO_INT = Datatype.#pair('TWO_INT', 'int32', 4, 4, 8);
  /** MPI_SHORT_INT: int16 value, int32 index at 4 (extent 8). */
  static readonly SHORT_INT = Datatype.#pair('SHORT_INT', 'int16', 2, 4, 8);

  static #basic(name: string, kind: BasicKind, size: number): Datatype {
    return new Datatype({ name, parts: [], leaves: [{ disp: 0, kind, size }], lb: 0, extent: size }, true);
  }

  static #pair(name: string, kind: BasicKind, size: number, indexAt: number, extent: number): Datatype {
    return new Datatype({ name, parts: [], leaves: [{ disp: 0, kind, size }, { disp: indexAt, kind: 'int32', size: 4 }], lb: 0, extent }, true, kind);
  }

  // ---- derived (MPI_Type_contiguous, _vector, _create_hvector, _indexed, _create_hindexed, _create_struct, _create_resized)

  /**
   * `count` copies of `oldtype` back to back (MPI_Type_contiguous).
   * @throws MpiError ERR_COUNT for a bad count, ERR_TYPE when `oldtype` is not a Datatype.
   */
  static contiguous(count: number, oldtype: Datatype): Datatype {
    const n = requireCount(count, 'count');
    const old = requireType(oldtype, 'oldtype');
    return new Datatype({ name: `contiguous(${n},${old.name})`, parts: [{ disp: 0, count: n, type: old }], combiner: 'contiguous', contents: { integers: [n], addresses: [], datatypes: [old] } }, false);
  }

  /** `count` blocks of `blocklength` elements, block starts `stride` elements apart. */
  static vector(count: number, blocklength: number, stride: number, oldtype: Datatype): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const contents = { integers: [count, blocklength, stride], addresses: [], datatypes: [old] };
    return Datatype.#strided(`vector(${count},${blocklength},${stride},${old.name})`, count, blocklength, requireInteger(stride, 'stride') * old.extent, old, 'vector', contents);
  }

  /** As `vector`, with the stride in bytes. */
  static hvector(count: number, blocklength: number, strideBytes: number, oldtype: Datatype): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const contents = { integers: [count, blocklength], addresses: [strideBytes], datatypes: [old] };
    return Datatype.#strided(`hvector(${count},${blocklength},${strideBytes},${old.name})`, count, blocklength, requireInteger(strideBytes, 'strideBytes'), old, 'hvector', contents);
  }

  static #strided(name: string, count: number, blocklength: number, strideBytes: number, old: Datatype, combiner: 'vector' | 'hvector', contents: TypeContents): Datatype {
    const n = requireCount(count, 'count');
    const bl = requireCount(blocklength, 'blocklength');
    const parts: Part[] = [];
    for (let i = 0; i < n; i++) parts.push({ disp: i * strideBytes, count: bl, type: old });
    return new Datatype({ name, parts, combiner, contents }, false);
  }

  /** Blocks of `blocklengths[i]` elements at `displacements[i]` extents of `oldtype`. */
  static indexed(blocklengths: readonly number[], displacements: readonly number[], oldtype: Datatype): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const [bls, disps] = requireBlocks(blocklengths, displacements);
    const contents = { integers: [bls.length, ...bls, ...disps], addresses: [], datatypes: [old] };
    return new Datatype({ name: `indexed(${bls.length},${old.name})`, parts: bls.map((bl, i) => ({ disp: disps[i] * old.extent, count: bl, type: old })), combiner: 'indexed', contents }, false);
  }

  /** As `indexed`, with displacements in bytes. */
  static hindexed(blocklengths: readonly number[], byteDisplacements: readonly number[], oldtype: Datatype): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const [bls, disps] = requireBlocks(blocklengths, byteDisplacements, 'byteDisplacements');
    const contents = { integers: [bls.length, ...bls], addresses: disps, datatypes: [old] };
    return new Datatype({ name: `hindexed(${bls.length},${old.name})`, parts: bls.map((bl, i) => ({ disp: disps[i], count: bl, type: old })), combiner: 'hindexed', contents }, false);
  }

  /** Blocks of `blocklengths[i]` elements of `types[i]` at `byteDisplacements[i]`. */
  static struct(blocklengths: readonly number[], byteDisplacements: readonly number[], types: readonly Datatype[]): Datatype {
    const [bls, disps] = requireBlocks(blocklengths, byteDisplacements, 'byteDisplacements');
    if (!Array.isArray(types) || types.length !== bls.length) {
      throw new MpiError(ErrorClass.ERR_ARG, `types must be an array of ${bls.length} Datatypes (one per block), got ${describeValue(types)}`, { argument: 'types' });
    }
    const ts = types.map((t, i) => requireType(t, `types[${i}]`));
    const contents = { integers: [bls.length, ...bls], addresses: disps, datatypes: ts };
    return new Datatype({ name: `struct(${ts.map((t) => t.name).join(',')})`, parts: bls.map((bl, i) => ({ disp: disps[i], count: bl, type: ts[i] })), combiner: 'struct', contents }, false);
  }

  /** `oldtype` with lower bound `lb` and extent `extent` (MPI_Type_create_resized). */
  static resized(oldtype: Datatype, lb: number, extent: number): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const at = requireInteger(lb, 'lb');
    const ext = requireInteger(extent, 'extent');
    return new Datatype({ name: `resized(${old.name},${at},${ext})`, parts: [{ disp: 0, count: 1, type: old }], lb: at, extent: ext, combiner: 'resized', contents: { integers: [], addresses: [at, ext], datatypes: [old] } }, false);
  }

  /**
   * A `subsizes` block starting at `starts` of an array of `sizes` elements of `oldtype` stored in
   * `order` (MPI_Type_create_subarray): lower bound 0, the whole array's extent. Zero subsizes allowed.
   */
  static createSubarray(sizes: readonly number[], subsizes: readonly number[], starts: readonly number[], order: ArrayOrder, oldtype: Datatype): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const layout = subarrayLayout(sizes, subsizes, starts, order, old);
    const integers = [sizes.length, ...sizes, ...subsizes, ...starts, ORDER_CODES[order]];
    return Datatype.#wrap(`subarray(${sizes.join('x')},${old.name})`, layout, 'subarray', { integers, addresses: [], datatypes: [old] });
  }

  /**
   * The part of a `gsizes` array of `oldtype`, distributed over a row-major grid of `psizes`
   * processes by `distribs` with block sizes `dargs` (`DISTRIBUTE_DFLT_DARG` for the default), that
   * process `rank` of `size` owns (MPI_Type_create_darray, HPF's distributions).
   */
  static createDarray(
    size: number,
    rank: number,
    gsizes: readonly number[],
    distribs: readonly Distribution[],
    dargs: readonly number[],
    psizes: readonly number[],
    order: ArrayOrder,
    oldtype: Datatype,
  ): Datatype {
    const old = requireType(oldtype, 'oldtype');
    const layout = darrayLayout(size, rank, gsizes, distribs, dargs, psizes, order, old);
    const integers = [size, rank, gsizes.length, ...gsizes, ...distribs.map((d) => DISTRIBUTION_CODES[d]), ...dargs, ...psizes, ORDER_CODES[requireOrder(order)]];
    return Datatype.#wrap(`darray(${rank}/${size},${old.name})`, layout, 'darray', { integers, addresses: [], datatypes: [old] });
  }

  /** `layout` under its own name and combiner (same bounds). */
  static #wrap(name: string, layout: Datatype, combiner: 'subarray' | 'darray', contents: TypeContents): Datatype {
    return new Datatype({ name, parts: [{ disp: 0, count: 1, type: layout }], lb: layout.lb, extent: layout.extent, combiner, contents }, false);
  }
}

function requireType(type: unknown, argument: string): Datatype {
  if (!(type instanceof Datatype)) throw new MpiError(ErrorClass.ERR_TYPE, `${argument} must be a Datatype, got ${describeValue(type)}`, { argument });
  type.requireUsable(argument);
  return type;
}

function requireCount(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new MpiError(ErrorClass.ERR_COUNT, `${argument} must be a non-negative integer, got ${describeValue(value)}`, { argument });
  }
  return value;
}

function requireInteger(value: unknown, argument: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new MpiError(ErrorClass.ERR_ARG, `${argument} must be an integer, got ${describeValue(value)}`, { argument });
  return value;
}

function requireBlocks(blocklengths: unknown, displacements: unknown, dispName = 'displacements'): [number[], number[]] {
  if (!Array.isArray(blocklengths)) throw new MpiError(ErrorClass.ERR_ARG, `blocklengths must be an array, got ${describeValue(blocklengths)}`, { argument: 'blocklengths' });
  if (!Array.isArray(displacements) || displacements.length !== blocklengths.length) {
    throw new MpiError(ErrorClass.ERR_ARG, `${dispName} must be an array as long as blocklengths (${blocklengths.length}), got ${describeValue(displacements)}`, { argument: dispName });
  }
  return [blocklengths.map((b, i) => requireCount(b, `blocklengths[${i}]`)), displacements.map((d, i) => requireInteger(d, `${dispName}[${i}]`))];
}

function requirePosition(position: unknown, length: number): number {
  if (typeof position !== 'number' || !Number.isInteger(position) || position < 0 || position > length) {
    throw new MpiError(ErrorClass.ERR_ARG, `position must be an integer in [0, ${length}], got ${describeValue(position)}`, { argument: 'position' });
  }
  return position;
}

function requireBytes(buf: unknown, argument: string): Uint8Array {
  if (!(buf instanceof Uint8Array)) throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} must be a Uint8Array (packed bytes), got ${describeValue(buf)}`, { argument });
  return buf;
}

function viewBytes(buf: unknown, argument: string): Uint8Array {
  if (!ArrayBuffer.isView(buf)) throw new MpiError(ErrorClass.ERR_BUFFER, `${argument} must be a TypedArray, Buffer or DataView, got ${describeValue(buf)}`, { argument });
  return bufferBytes(buf);
}
