import type { InterfaceAdapter } from './ia.js';
import type { DatEvent } from './events.js';

/** How deep an event dispatcher's queue is. */
export interface EvdOptions {
  /** Events the queue holds before producers stall or an overflow is reported. */
  readonly queueDepth?: number;
}

/** How long `evd.wait` may wait and what may abort it. */
export interface EvdWaitOptions {
  /** Reject with TIMEOUT_EXPIRED after this long. Default: wait without a time limit. */
  readonly timeoutMs?: number;
  /** Reject with INTERRUPTED_CALL when aborted. */
  readonly signal?: AbortSignal;
}

/** A listener called when events arrive; it should dequeue until the queue is empty. */
export type EvdNotify = (evd: EventDispatcher) => void;

/** An event dispatcher: the queue that completions and connection events arrive on. */
export interface EventDispatcher {
  readonly ia: InterfaceAdapter;
  readonly queueDepth: number;
  /** Events waiting to be dequeued. */
  readonly size: number;
  readonly freed: boolean;
  /** The oldest event, or undefined when the queue is empty. */
  dequeue(): DatEvent | undefined;
  /** The oldest event, waiting for one if the queue is empty. Waiters are served before notify. */
  wait(options?: EvdWaitOptions): Promise<DatEvent>;
  /**
   * Push delivery (the role of DAT's CNO): `fn` runs in a microtask after one or more events
   * arrive; undefined switches it off.
   */
  setNotify(fn: EvdNotify | undefined): void;
  /** Queue a `software` event carrying `value`, as any other event (wakes waiters, notifies). */
  postSoftwareEvent(value: unknown): void;
  /** Pending waiters reject with INVALID_HANDLE. Fails with INVALID_STATE while an EP or PSP uses it. */
  free(): void;
}
