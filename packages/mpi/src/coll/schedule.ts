import { RequestCore } from '../adi/request-core.js';
import { ErrorClass, MpiError } from '../api/errors.js';
import { Status } from '../api/status.js';

/**
 * One round of a collective algorithm: the requests it posted, all of which must complete before
 * the algorithm goes on (MPICH's schedule barrier). A single request's status is handed back to
 * the algorithm (`const st = yield ch.irecv(…)`), an array's is not.
 */
export type Round = RequestCore | readonly RequestCore[];

/**
 * A collective algorithm as a schedule (MPICH's "sched", libNBC's rounds): a generator that posts
 * a round of sends and receives, yields it, and is resumed when the round has completed, doing its
 * local work (op application, copies, charged to the clock) between rounds. The same algorithm runs
 * blocking (`runBlocking`, awaited) or nonblocking (`ScheduleRequest`, advanced by completions).
 * Its code up to the first `yield` runs at once: argument checks throw before anything moves.
 */
export type Steps = Generator<Round, void, Status | undefined>;

/** Run `steps` to the end, awaiting each round: a blocking collective. A failed request rejects after its round has settled. */
export async function runBlocking(steps: Steps): Promise<void> {
  let input: Status | undefined;
  for (let r = steps.next(); r.done !== true; r = steps.next(input)) {
    const round = r.value;
    if (round instanceof RequestCore) input = await round.wait();
    else {
      input = undefined;
      await settled(round);
    }
  }
}

/**
 * Wait for every request; the first failure (in round order) rejects, after all have settled. One
 * promise for the round, resolved by a countdown, not one per request and an allSettled over them.
 */
export function settled(requests: readonly RequestCore[]): Promise<void> {
  let left = 0;
  for (const r of requests) if (!r.done) left++;
  if (left === 0) return outcome(requests);
  return new Promise<void>((resolve, reject) => {
    const countDown = (): void => {
      if (--left === 0) outcome(requests).then(resolve, reject);
    };
    for (const r of requests) if (!r.done) r.onDone(countDown);
  });
}

function outcome(requests: readonly RequestCore[]): Promise<void> {
  for (const r of requests) if (r.error !== undefined) return Promise.reject(r.error);
  return Promise.resolve();
}

/**
 * A nonblocking collective (MPI-3.1 §5.12): its schedule, advanced from the completions of its
 * rounds — that is, from the transport's EVD notifications, with no progress thread and without
 * the program calling MPI. A completion continues the schedule on a microtask, never inside the
 * device's event handling. A failure (a request of a round, or the algorithm's local work) fails
 * this request; nothing is thrown out of the event loop.
 */
export class ScheduleRequest extends RequestCore {
  readonly #steps: Steps;
  #pending = 0;
  #round: Round | undefined;
  #failure: MpiError | undefined;

  /** Starts `steps`: its checks and first round run now, and a bad argument throws here, before anything is posted. */
  constructor(
    steps: Steps,
    /** What a deadlock report or an error says this is, e.g. `MPI ibcast on world`. */
    readonly what: string,
  ) {
    super();
    this.#steps = steps;
    const first = steps.next();
    this.#await(first);
  }

  #await(r: IteratorResult<Round, void>): void {
    if (r.done === true) return this.complete(Status.EMPTY);
    const round = r.value;
    this.#round = round;
    if (round instanceof RequestCore) {
      this.#pending = 1;
      round.onDone(this.#oneDone);
      return;
    }
    this.#pending = round.length;
    if (round.length === 0) return this.#continue();
    for (const request of round) request.onDone(this.#oneDone);
  }

  readonly #oneDone = (): void => {
    if (--this.#pending === 0) queueMicrotask(this.#continue);
  };

  readonly #continue = (): void => {
    const round = this.#round!;
    this.#round = undefined;
    let input: Status | undefined;
    if (round instanceof RequestCore) {
      this.#failure = round.error;
      input = round.status;
    } else {
      for (const request of round) {
        if (request.error !== undefined) {
          this.#failure = request.error;
          break;
        }
      }
    }
    if (this.#failure !== undefined) {
      this.#steps.return();
      return this.fail(this.#failure);
    }
    let next: IteratorResult<Round, void>;
    try {
      next = this.#steps.next(input);
    } catch (error) {
      return this.fail(asMpiError(error, this.what));
    }
    this.#await(next);
  };
}

function asMpiError(error: unknown, what: string): MpiError {
  if (error instanceof MpiError) return error;
  return new MpiError(ErrorClass.ERR_INTERN, `${what} failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
