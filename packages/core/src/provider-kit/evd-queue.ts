import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { DatEvent } from '../dat/events.js';
import type { EventDispatcher, EvdNotify, EvdWaitOptions } from '../dat/evd.js';
import { defer } from '../util/defer.js';
import { Fifo } from '../util/fifo.js';
import { describe, requireFunction, requireInteger, requireOptionKeys } from './validate.js';
import type { IaBase } from './ia-base.js';

interface Waiter {
  resolve(event: DatEvent): void;
  reject(error: DatError): void;
  /** When a timed wait expires (performance.now() ms); undefined for an untimed or settled one. */
  deadline: number | undefined;
  timeoutMs: number;
  cleanup: (() => void) | undefined;
}

/**
 * The EVD every provider uses: a FIFO of events with waiters and push notification.
 * Producers that can stall (a socket, a simulated link) check `hasRoom` and register
 * `onRoom` so that a consumer which stops dequeuing applies backpressure instead of
 * letting the queue grow without bound.
 */
export class EvdQueue implements EventDispatcher {
  private readonly events = new Fifo<DatEvent>(64);
  private readonly waiters = new Fifo<Waiter>(4);
  private notify: EvdNotify | undefined;
  private notifyScheduled = false;
  private overflowReported = false;
  private readonly roomListeners = new Set<() => void>();
  /**
   * One timer for every timed wait of this EVD, armed for the earliest deadline: a wait that is
   * satisfied in microseconds (a ping-pong with a timeout on each wait) costs no setTimeout and
   * clearTimeout of its own. Unreferenced while no timed wait is pending, so it holds no process open.
   */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private timedWaiters = 0;
  /** Endpoints and PSPs that report to this EVD. */
  private users = 0;
  private isFreed = false;

  constructor(
    readonly ia: IaBase,
    readonly queueDepth: number,
  ) {}

  get size(): number {
    return this.events.size;
  }

  get freed(): boolean {
    return this.isFreed;
  }

  /** True while another event fits within `queueDepth`. */
  get hasRoom(): boolean {
    return this.events.size < this.queueDepth;
  }

  /** Called (once per registration) when a full queue has room again. */
  onRoom(listener: () => void): void {
    this.roomListeners.add(listener);
  }

  /** Provider side: deliver an event to the first waiter, or queue it and notify. */
  push(event: DatEvent): void {
    if (this.isFreed) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.settle(waiter);
      waiter.resolve(event);
      return;
    }
    if (this.events.size >= this.queueDepth && !this.overflowReported) {
      // Producers that could stall did; what still arrives is kept (losing a completion would
      // corrupt the consumer's accounting), and the overflow is reported once.
      this.overflowReported = true;
      this.events.push({ type: 'async-error', status: DatStatus.QUEUE_FULL, message: `EVD overflow: more than ${this.queueDepth} events queued`, evd: this });
    }
    this.events.push(event);
    this.scheduleNotify();
  }

  dequeue(): DatEvent | undefined {
    this.checkNotFreed('dequeue');
    let event = this.events.shift();
    // An empty queue polls the provider once, as dat_evd_dequeue polls the CQ (a no-op where completions come on their own).
    if (event === undefined && this.ia.pollProgress()) event = this.events.shift();
    if (event !== undefined && this.roomListeners.size > 0 && this.events.size < this.queueDepth) this.signalRoom();
    return event;
  }

  wait(options: EvdWaitOptions = {}): Promise<DatEvent> {
    this.checkNotFreed('wait');
    if (typeof options !== 'object' || options === null) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `options must be an object { timeoutMs?, signal? }, got ${describe(options)}`, { argument: 'options' });
    }
    requireOptionKeys(options, ['timeoutMs', 'signal'], 'evd.wait');
    const { timeoutMs, signal } = options;
    if (timeoutMs !== undefined) requireInteger(timeoutMs, 'timeoutMs', 0, 2 ** 31 - 1);
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `signal must be an AbortSignal, got ${describe(signal)}`, { argument: 'signal' });
    }
    const ready = this.dequeue();
    if (ready !== undefined) return Promise.resolve(ready);
    if (signal?.aborted) return Promise.reject(interrupted());
    return new Promise<DatEvent>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, deadline: undefined, timeoutMs: 0, cleanup: undefined };
      if (timeoutMs !== undefined) this.arm(waiter, timeoutMs);
      if (signal !== undefined) {
        const onAbort = (): void => {
          this.removeWaiter(waiter);
          reject(interrupted());
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      this.waiters.push(waiter);
    });
  }

  setNotify(fn: EvdNotify | undefined): void {
    this.checkNotFreed('setNotify');
    if (fn !== undefined) requireFunction(fn, 'fn');
    this.notify = fn;
    if (fn !== undefined && this.events.size > 0) this.scheduleNotify();
  }

  postSoftwareEvent(value: unknown): void {
    this.checkNotFreed('postSoftwareEvent');
    this.push({ type: 'software', value });
  }

  /** Kit bookkeeping: an EP or PSP starts or stops reporting here. */
  retain(): void {
    this.users++;
  }

  /** Kit bookkeeping: the pair of `retain`, when an EP or PSP stops reporting here. */
  release(): void {
    this.users--;
  }

  free(): void {
    this.checkNotFreed('free');
    if (this.users > 0) {
      throw new DatError(DatStatus.INVALID_STATE, `the EVD is still used by ${this.users} endpoint(s) or PSP(s); free those first`, { argument: 'evd', subtype: 'DAT_INVALID_STATE_EVD_IN_USE' });
    }
    this.destroy();
    // Forgotten by its IA at once, not only at close: an IA that makes and frees EVDs keeps none.
    this.ia.forgetEvd(this);
  }

  /** Release without the in-use check (IA close). */
  destroy(): void {
    if (this.isFreed) return;
    this.isFreed = true;
    this.notify = undefined;
    for (let w = this.waiters.shift(); w !== undefined; w = this.waiters.shift()) {
      this.settle(w);
      w.reject(new DatError(DatStatus.INVALID_HANDLE, 'the EVD was freed while waiting', { argument: 'evd', subtype: 'DAT_INVALID_HANDLE_EVD' }));
    }
    this.events.drain();
    this.roomListeners.clear();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly notifyTask = (): void => {
    this.notifyScheduled = false;
    if (this.notify !== undefined && this.events.size > 0) this.notify(this);
  };

  private scheduleNotify(): void {
    if (this.notify === undefined || this.notifyScheduled) return;
    this.notifyScheduled = true;
    defer(this.notifyTask);
  }

  private signalRoom(): void {
    const listeners = [...this.roomListeners];
    this.roomListeners.clear();
    for (const l of listeners) l();
  }

  /** A timed wait: the EVD's timer fires by its deadline. */
  private arm(waiter: Waiter, timeoutMs: number): void {
    const deadline = performance.now() + timeoutMs;
    waiter.deadline = deadline;
    waiter.timeoutMs = timeoutMs;
    if (this.timedWaiters++ === 0) this.timer?.ref();
    if (deadline < this.timerAt) this.startTimer(deadline);
  }

  private startTimer(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.expire, Math.max(0, Math.ceil(at - performance.now())));
  }

  /** The timer fired: every wait past its deadline fails; the timer is armed for the next one. */
  private readonly expire = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    const expired: Waiter[] = [];
    let next = Infinity;
    for (let i = 0; i < this.waiters.size; i++) {
      const w = this.waiters.at(i)!;
      if (w.deadline === undefined) continue;
      if (w.deadline <= now) expired.push(w);
      else next = Math.min(next, w.deadline);
    }
    for (const w of expired) {
      this.removeWaiter(w);
      w.reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `no event within ${w.timeoutMs} ms`, { argument: 'timeoutMs' }));
    }
    if (next !== Infinity) this.startTimer(next);
  };

  /** A waiter is done: its deadline no longer counts, its abort listener goes. */
  private settle(w: Waiter): void {
    if (w.deadline !== undefined) {
      w.deadline = undefined;
      // The timer stays armed (re-arming per wait is what it saves) but holds nothing open.
      if (--this.timedWaiters === 0) this.timer?.unref();
    }
    w.cleanup?.();
  }

  /** A waiter gives up (timeout or abort): out of the queue, its deadline and abort listener gone with it. */
  private removeWaiter(target: Waiter): void {
    this.settle(target);
    const keep: Waiter[] = [];
    for (let w = this.waiters.shift(); w !== undefined; w = this.waiters.shift()) if (w !== target) keep.push(w);
    for (const w of keep) this.waiters.push(w);
  }

  private checkNotFreed(op: string): void {
    if (this.isFreed) {
      throw new DatError(DatStatus.INVALID_HANDLE, `cannot ${op}: the EVD has been freed`, { argument: 'evd', subtype: 'DAT_INVALID_HANDLE_EVD' });
    }
  }
}

function interrupted(): DatError {
  return new DatError(DatStatus.INTERRUPTED_CALL, 'the wait was aborted', { argument: 'signal' });
}
