/**
 * Doubly linked lists whose links live in the nodes (intrusive), so that one node can sit on several
 * lists at once (`slot` picks which links) and leave any of them in O(1).
 */
export class ListNode<T> {
  /** prev/next per slot: [prev0, next0, prev1, next1, …]. */
  readonly links: (ListNode<T> | null)[];
  /** The list the node is on, per slot (null when off). */
  readonly lists: (LinkedList<T> | null)[];
  value: T | undefined = undefined;
  context = 0;
  source = 0;
  tag = 0;
  /** Order of insertion (posts or arrivals), for choosing the oldest of several heads. */
  seq = 0;

  constructor(slots: number) {
    // A posted receive's node (one slot) is made per post: array literals, not Array().fill().
    this.links = slots === 1 ? [null, null] : new Array<ListNode<T> | null>(2 * slots).fill(null);
    this.lists = slots === 1 ? [null] : new Array<LinkedList<T> | null>(slots).fill(null);
  }
}

export class LinkedList<T> {
  head: ListNode<T> | null = null;
  tail: ListNode<T> | null = null;
  size = 0;
  /** Left filed while empty, for reuse (its owner keeps a bounded number so). */
  parked = false;

  /** `key` is where the list is filed in its owner's map (to drop it when it empties). */
  constructor(readonly key: number) {}
}

export function pushBack<T>(list: LinkedList<T>, node: ListNode<T>, slot: number): void {
  const l = node.links;
  l[2 * slot] = list.tail;
  l[2 * slot + 1] = null;
  if (list.tail === null) list.head = node;
  else list.tail.links[2 * slot + 1] = node;
  list.tail = node;
  node.lists[slot] = list;
  list.size++;
}

/** Take `node` off its list in `slot`; returns the list it was on (null if none). */
export function unlink<T>(node: ListNode<T>, slot: number): LinkedList<T> | null {
  const list = node.lists[slot];
  if (list === null) return null;
  const l = node.links;
  const prev = l[2 * slot];
  const next = l[2 * slot + 1];
  if (prev === null) list.head = next;
  else prev.links[2 * slot + 1] = next;
  if (next === null) list.tail = prev;
  else next.links[2 * slot] = prev;
  l[2 * slot] = null;
  l[2 * slot + 1] = null;
  node.lists[slot] = null;
  list.size--;
  return list;
}
