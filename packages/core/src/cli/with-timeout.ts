import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

/** `promise`, or TIMEOUT_EXPIRED after `ms` naming `what`. The timer never keeps the process alive. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatError(DatStatus.TIMEOUT_EXPIRED, `${what} did not finish within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, expiry]).finally(() => clearTimeout(timer));
}
