import type { RequestCore } from '../adi/request-core.js';
import type { BufferSpan } from '../adi/transfer.js';
import type { Op } from '../coll/op.js';
import type { Datatype } from '../datatype/index.js';
import type { WindowSpan } from './apply.js';
import type { RmaKind } from './wire.js';

/** One checked one-sided operation, handed to the first path that accepts it. */
export interface RmaOperation {
  readonly kind: RmaKind.PUT | RmaKind.GET | RmaKind.ACCUMULATE | RmaKind.GET_ACCUMULATE | RmaKind.COMPARE_AND_SWAP;
  /** Rank in the window's group. */
  readonly target: number;
  /** Put, accumulate: the data; get: where it lands; compareAndSwap: the new value. */
  readonly origin: BufferSpan;
  /** getAccumulate, fetchAndOp, compareAndSwap: where the target's old values land. */
  readonly result: BufferSpan | undefined;
  /** compareAndSwap: the value compared with. */
  readonly compare: BufferSpan | undefined;
  /** Where it lands in the target's window. */
  readonly span: WindowSpan;
  readonly targetType: Datatype;
  readonly op: Op | undefined;
  /** The predefined type an accumulate's op works on (its atom). */
  readonly element: Datatype | undefined;
  /** rput, rget, raccumulate: completes once the operation is complete here. */
  readonly local: RequestCore | undefined;
}
