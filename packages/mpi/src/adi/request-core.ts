import type { MpiError } from '../api/errors.js';
import type { Status } from '../api/status.js';

/**
 * What holds the process while somebody awaits a request: set by a rank that is the whole process
 * (it lets its sockets go so that it can finalize at exit; see api/finalize-at-exit.ts), so that a
 * wait no call declared — inside a collective, or a library built on requests — still keeps it alive.
 */
export const requestWaitHold: { hold: (() => void) | undefined; release: (() => void) | undefined } = { hold: undefined, release: undefined };

/**
 * The state every request shares (MPICH's MPIR_Request): complete or not, its status or error,
 * and whoever waits. The promise is made only when someone waits, so a request that completes
 * before anyone asks costs no promise.
 */
export class RequestCore {
  done = false;
  status: Status | undefined;
  error: MpiError | undefined;
  /** Made by the first `wait()` before completion (see the class comment). */
  #promise: Promise<Status> | undefined;
  #resolve: ((status: Status) => void) | undefined;
  #reject: ((error: MpiError) => void) | undefined;
  /**
   * Called once on completion. Most requests have one or two (the device's in-flight count, a
   * waitAll countdown): the first is held in a field, so only a third needs an array.
   */
  #first: (() => void) | undefined;
  #second: (() => void) | undefined;
  #more: (() => void)[] | undefined;

  complete(status: Status): void {
    if (this.done) return;
    this.done = true;
    this.status = status;
    if (this.#resolve !== undefined) {
      this.#resolve(status);
      requestWaitHold.release?.();
    }
    this.#notify();
  }

  fail(error: MpiError): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    if (this.#reject !== undefined) {
      this.#reject(error);
      requestWaitHold.release?.();
    }
    this.#notify();
  }

  /** The outcome: resolves with the status, rejects with the error. */
  wait(): Promise<Status> {
    if (this.done) return this.error === undefined ? Promise.resolve(this.status!) : Promise.reject(this.error);
    if (this.#promise === undefined) {
      this.#promise = new Promise<Status>((resolve, reject) => {
        this.#resolve = resolve;
        this.#reject = reject;
      });
      requestWaitHold.hold?.();
    }
    return this.#promise;
  }

  /** Run `listener` once when the request completes (at once if it has). */
  onDone(listener: () => void): void {
    if (this.done) return listener();
    if (this.#first === undefined) this.#first = listener;
    else if (this.#second === undefined) this.#second = listener;
    else (this.#more ??= []).push(listener);
  }

  #notify(): void {
    const first = this.#first;
    if (first === undefined) return;
    const second = this.#second;
    const more = this.#more;
    this.#first = this.#second = this.#more = undefined;
    first();
    second?.();
    if (more !== undefined) for (const listener of more) listener();
  }
}
