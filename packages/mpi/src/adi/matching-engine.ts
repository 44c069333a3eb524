import { ANY_SOURCE, ANY_TAG } from '../api/constants.js';
import { LinkedList, ListNode, pushBack, unlink } from './intrusive-list.js';

/** A posted receive's handle, for `cancel`. Opaque. */
export type PostedHandle = object;

/** What `post` found: the oldest unexpected message it accepts, or the handle of the queued receive. */
export type PostResult<M> = { readonly message: M; readonly handle?: undefined } | { readonly message?: undefined; readonly handle: PostedHandle };

/** Unexpected messages are on four lists at once: by (source, tag), by source, by tag, and all. */
const BY_PAIR = 0;
const BY_SOURCE = 1;
const BY_TAG = 2;
const ALL = 3;
const UNEXPECTED_SLOTS = 4;

/** A (source, tag) pair as one number: source and tag are non-negative int32s here. */
function pairKey(source: number, tag: number): number {
  return source * 0x1_0000_0000 + tag;
}

/**
 * Bins left filed while empty, at most this many (the oldest is dropped when one more empties): a
 * stream that posts and matches the same (source, tag) again and again — every ping-pong — reuses
 * its bins instead of making and filing a list per message, and memory still follows what is
 * queued, give or take these.
 */
export const PARKED_BINS = 8;

/** One communicator context's queues. */
class ContextQueues<R, M> {
  /** Posted receives by kind of pattern; each list is FIFO, and every entry of a list accepts the same messages. */
  readonly postedByPair = new Map<number, LinkedList<R>>();
  readonly postedAnySource = new Map<number, LinkedList<R>>();
  readonly postedAnyTag = new Map<number, LinkedList<R>>();
  readonly postedAny = new LinkedList<R>(-1);
  readonly unexpectedByPair = new Map<number, LinkedList<M>>();
  readonly unexpectedBySource = new Map<number, LinkedList<M>>();
  readonly unexpectedByTag = new Map<number, LinkedList<M>>();
  readonly unexpected = new LinkedList<M>(-1);
  /** Posted receives queued, in all bins. */
  posted = 0;

  get empty(): boolean {
    return this.posted === 0 && this.unexpected.size === 0;
  }
}

/**
 * MPI matching (MPI-3.1 §3.5) in O(1) per operation, whatever the number of posted receives and
 * unexpected messages (docs/mpi-design.md). A message matches the OLDEST posted receive that accepts
 * it: the candidates are the heads of at most four FIFO bins — (source, tag), (ANY, tag),
 * (source, ANY), (ANY, ANY) — compared by post order. A receive matches the OLDEST unexpected
 * message it accepts: the head of the one list that holds exactly the messages its pattern accepts.
 * Empty bins are dropped (all but the last `PARKED_BINS` to empty, kept for reuse), and so are
 * emptied contexts (all but the last), so memory follows what is queued, not every tag ever used.
 */
export class MatchingEngine<R, M> {
  readonly #contexts = new Map<number, ContextQueues<R, M>>();
  /**
   * The queues of the last context that emptied, for the next context to need some: a stream that
   * drains its receives every window (osu_bw) would otherwise build six maps per window.
   */
  #spareQueues: ContextQueues<R, M> | undefined = undefined;
  /** Unexpected-message nodes for reuse (posted nodes are handles, so never reused). */
  readonly #spare: ListNode<M>[] = [];
  /** Bins left filed while empty, oldest first, and the map each is filed in (`PARKED_BINS` at most). */
  readonly #parked: LinkedList<unknown>[] = [];
  readonly #parkedIn: Map<number, LinkedList<unknown>>[] = [];
  /** The context that emptied last, left in place for its next post (one that empties after it retires it). */
  #idleContext: number | undefined = undefined;
  #postSeq = 0;
  #arrivalSeq = 0;
  #posted = 0;
  #unexpected = 0;

  get postedCount(): number {
    return this.#posted;
  }

  get unexpectedCount(): number {
    return this.#unexpected;
  }

  /** Lists filed in maps across all contexts, and contexts held (when nothing is queued: at most `PARKED_BINS` and one). */
  get binCount(): number {
    let n = this.#contexts.size;
    for (const q of this.#contexts.values()) {
      n += q.postedByPair.size + q.postedAnySource.size + q.postedAnyTag.size + q.unexpectedByPair.size + q.unexpectedBySource.size + q.unexpectedByTag.size;
    }
    return n;
  }

  post(context: number, source: number, tag: number, receive: R): PostResult<M> {
    const q = this.#contexts.get(context);
    if (q !== undefined) {
      const found = this.#oldestUnexpected(q, source, tag);
      if (found !== null) {
        const message = found.value!;
        this.#removeUnexpected(context, q, found);
        return { message };
      }
    }
    const queues = q ?? this.#queues(context);
    const node = new ListNode<R>(1);
    node.context = context;
    node.value = receive;
    node.source = source;
    node.tag = tag;
    node.seq = ++this.#postSeq;
    let bin: LinkedList<R>;
    if (source === ANY_SOURCE) bin = tag === ANY_TAG ? queues.postedAny : filed(queues.postedAnySource, tag);
    else bin = tag === ANY_TAG ? filed(queues.postedAnyTag, source) : filed(queues.postedByPair, pairKey(source, tag));
    pushBack(bin, node, 0);
    queues.posted++;
    this.#posted++;
    return { handle: node };
  }

  /** A message arrived: the oldest posted receive that accepts it, taken off its queue; else it is queued as unexpected. */
  arrive(context: number, source: number, tag: number, message: M): R | undefined {
    const receive = this.takePosted(context, source, tag);
    if (receive === undefined) this.queueUnexpected(context, source, tag, message);
    return receive;
  }

  /**
   * The oldest posted receive that accepts a message of (`context`, `source`, `tag`), taken off its
   * queue; undefined (nothing changed) when none does. With `queueUnexpected` it is `arrive` in two
   * steps, so a device can deliver into a matched receive before it builds a message record.
   */
  takePosted(context: number, source: number, tag: number): R | undefined {
    if (this.#posted === 0) return undefined;
    const q = this.#contexts.get(context);
    if (q === undefined) return undefined;
    let best: ListNode<R> | null = q.postedAny.head;
    best = older(best, q.postedByPair.get(pairKey(source, tag))?.head ?? null);
    best = older(best, q.postedAnySource.get(tag)?.head ?? null);
    best = older(best, q.postedAnyTag.get(source)?.head ?? null);
    if (best === null) return undefined;
    const receive = best.value!;
    this.#removePosted(context, q, best);
    return receive;
  }

  /** Queue a message that no posted receive accepts (`takePosted` found none), after every earlier one. */
  queueUnexpected(context: number, source: number, tag: number, message: M): void {
    const q = this.#queues(context);
    const node = this.#spare.pop() ?? new ListNode<M>(UNEXPECTED_SLOTS);
    node.value = message;
    node.source = source;
    node.tag = tag;
    node.seq = ++this.#arrivalSeq;
    pushBack(filed(q.unexpectedByPair, pairKey(source, tag)), node, BY_PAIR);
    pushBack(filed(q.unexpectedBySource, source), node, BY_SOURCE);
    pushBack(filed(q.unexpectedByTag, tag), node, BY_TAG);
    pushBack(q.unexpected, node, ALL);
    this.#unexpected++;
  }

  /**
   * A message with `handle`'s own context, source and tag arrived: if `handle` is the receive it
   * matches (the oldest posted receive accepting it), take it off its queue and return true. False
   * changes nothing. The device's shortcut for data it already wrote into that receive: the four
   * bin heads `arrive` compares, checked against this one receive, with no message record built.
   */
  takeIfFirst(handle: PostedHandle): boolean {
    if (!(handle instanceof ListNode)) return false;
    const node = handle as ListNode<R>;
    const bin = node.lists[0];
    if (bin === null || bin.head !== node || node.source === ANY_SOURCE || node.tag === ANY_TAG) return false;
    const q = this.#contexts.get(node.context)!;
    if (this.#olderWildcard(q, node)) return false;
    this.#removePosted(node.context, q, node);
    return true;
  }

  probe(context: number, source: number, tag: number): { message: M; source: number; tag: number } | undefined {
    const q = this.#contexts.get(context);
    if (q === undefined) return undefined;
    const found = this.#oldestUnexpected(q, source, tag);
    return found === null ? undefined : { message: found.value!, source: found.source, tag: found.tag };
  }

  cancel(handle: PostedHandle): boolean {
    if (!(handle instanceof ListNode)) return false;
    const node = handle as ListNode<R>;
    const q = this.#contexts.get(node.context);
    if (q === undefined || node.lists[0] === null) return false;
    this.#removePosted(node.context, q, node);
    return true;
  }

  /**
   * How many posted receives older than `handle` could take a message that `handle` accepts: the
   * older ones of its own (source, tag) bin. -1 when that is not all (an older wildcard receive could
   * take it), when `handle` is a wildcard receive itself, or when it is not the newest of its bin or no
   * longer posted. O(1): the wildcard bins' heads are their oldest entries.
   */
  olderRivals(handle: PostedHandle): number {
    if (!(handle instanceof ListNode)) return -1;
    const node = handle as ListNode<R>;
    const bin = node.lists[0];
    if (bin === null || bin.tail !== node || node.source === ANY_SOURCE || node.tag === ANY_TAG) return -1;
    return this.#olderWildcard(this.#contexts.get(node.context)!, node) ? -1 : bin.size - 1;
  }

  /** Remove every posted receive `which` selects, oldest first (a peer was lost: not a hot path). */
  removePosted(which: (receive: R) => boolean): R[] {
    const removed: ListNode<R>[] = [];
    for (const [context, q] of [...this.#contexts]) {
      const bins = [q.postedAny, ...q.postedByPair.values(), ...q.postedAnySource.values(), ...q.postedAnyTag.values()];
      const doomed: ListNode<R>[] = [];
      for (const bin of bins) for (let n = bin.head; n !== null; n = n.links[1]) if (which(n.value!)) doomed.push(n);
      for (const n of doomed) {
        removed.push(n);
        const value = n.value;
        this.#removePosted(context, q, n);
        n.value = value;
      }
    }
    removed.sort((a, b) => a.seq - b.seq);
    const receives = removed.map((n) => n.value!);
    for (const n of removed) n.value = undefined;
    return receives;
  }

  dropContext(context: number): { receives: R[]; messages: M[] } {
    const q = this.#contexts.get(context);
    const receives: R[] = [];
    const messages: M[] = [];
    if (q === undefined) return { receives, messages };
    const bins = [q.postedAny, ...q.postedByPair.values(), ...q.postedAnySource.values(), ...q.postedAnyTag.values()];
    const nodes: ListNode<R>[] = [];
    for (const bin of bins) for (let n = bin.head; n !== null; n = n.links[1]) nodes.push(n);
    nodes.sort((a, b) => a.seq - b.seq);
    for (const n of nodes) receives.push(n.value!);
    this.#posted -= nodes.length;
    for (let n = q.unexpected.head; n !== null; n = n.links[2 * ALL + 1]) messages.push(n.value!);
    this.#unexpected -= messages.length;
    this.#contexts.delete(context);
    return { receives, messages };
  }

  /** Whether a wildcard receive posted before `node` (a (source, tag) receive) would take its messages first: the wildcard bins' heads are their oldest. */
  #olderWildcard(q: ContextQueues<R, M>, node: ListNode<R>): boolean {
    const seq = node.seq;
    return (q.postedAny.head?.seq ?? Infinity) < seq || (q.postedAnySource.get(node.tag)?.head?.seq ?? Infinity) < seq || (q.postedAnyTag.get(node.source)?.head?.seq ?? Infinity) < seq;
  }

  /**
   * `context` has nothing queued: it stays, for its next post, until another context empties; then
   * it goes, and its (empty) maps are kept for the next context to need some.
   */
  #emptied(context: number): void {
    const idle = this.#idleContext;
    this.#idleContext = context;
    if (idle === undefined || idle === context) return;
    const q = this.#contexts.get(idle);
    if (q === undefined || !q.empty) return;
    this.#contexts.delete(idle);
    this.#spareQueues = q;
  }

  /** `list` emptied in `map`: it stays filed, and the oldest parked bin beyond `PARKED_BINS` goes (if still empty). */
  #park<T>(map: Map<number, LinkedList<T>>, list: LinkedList<T>): void {
    if (list.parked) return;
    list.parked = true;
    this.#parked.push(list);
    this.#parkedIn.push(map as Map<number, LinkedList<unknown>>);
    if (this.#parked.length <= PARKED_BINS) return;
    const oldest = this.#parked.shift()!;
    const filedIn = this.#parkedIn.shift()!;
    oldest.parked = false;
    if (oldest.size === 0 && filedIn.get(oldest.key) === oldest) filedIn.delete(oldest.key);
  }

  #queues(context: number): ContextQueues<R, M> {
    let q = this.#contexts.get(context);
    if (q === undefined) {
      q = this.#spareQueues ?? new ContextQueues<R, M>();
      this.#spareQueues = undefined;
      this.#contexts.set(context, q);
    }
    return q;
  }

  /** The one list whose messages are exactly those the pattern accepts; its head is the oldest. */
  #oldestUnexpected(q: ContextQueues<R, M>, source: number, tag: number): ListNode<M> | null {
    if (q.unexpected.size === 0) return null;
    if (source === ANY_SOURCE) return tag === ANY_TAG ? q.unexpected.head : (q.unexpectedByTag.get(tag)?.head ?? null);
    return tag === ANY_TAG ? (q.unexpectedBySource.get(source)?.head ?? null) : (q.unexpectedByPair.get(pairKey(source, tag))?.head ?? null);
  }

  #removePosted(context: number, q: ContextQueues<R, M>, node: ListNode<R>): void {
    const bin = unlink(node, 0);
    this.#posted--;
    q.posted--;
    node.value = undefined;
    if (bin !== null && bin.size === 0 && bin !== q.postedAny) {
      if (node.source === ANY_SOURCE) this.#park(q.postedAnySource, bin);
      else if (node.tag === ANY_TAG) this.#park(q.postedAnyTag, bin);
      else this.#park(q.postedByPair, bin);
    }
    if (q.empty) this.#emptied(context);
  }

  #removeUnexpected(context: number, q: ContextQueues<R, M>, node: ListNode<M>): void {
    this.#parkIfEmpty(q.unexpectedByPair, unlink(node, BY_PAIR));
    this.#parkIfEmpty(q.unexpectedBySource, unlink(node, BY_SOURCE));
    this.#parkIfEmpty(q.unexpectedByTag, unlink(node, BY_TAG));
    unlink(node, ALL);
    this.#unexpected--;
    node.value = undefined;
    this.#spare.push(node);
    if (q.empty) this.#emptied(context);
  }

  #parkIfEmpty<T>(map: Map<number, LinkedList<T>>, list: LinkedList<T> | null): void {
    if (list !== null && list.size === 0) this.#park(map, list);
  }
}

function filed<T>(map: Map<number, LinkedList<T>>, key: number): LinkedList<T> {
  let list = map.get(key);
  if (list === undefined) {
    list = new LinkedList<T>(key);
    map.set(key, list);
  }
  return list;
}

function older<T>(a: ListNode<T> | null, b: ListNode<T> | null): ListNode<T> | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.seq <= b.seq ? a : b;
}
