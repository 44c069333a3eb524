import type { SendRequest } from '../adi/requests.js';

/** A device's sends not yet complete, for `Device.drain` (settles when none is left). */
export class SendsInFlight {
  #count = 0;
  #drained: (() => void)[] = [];

  get count(): number {
    return this.#count;
  }

  /** Count `request` until it completes or fails. */
  track(request: SendRequest): void {
    this.#count++;
    request.onDone(this.#done);
  }

  readonly #done = (): void => {
    if (--this.#count === 0 && this.#drained.length > 0) for (const resolve of this.#drained.splice(0)) resolve();
  };

  drain(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }
}
