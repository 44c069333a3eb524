import { Fifo } from '@dapl/core';

/** One message's part of a peer's stream: it calls `done` when its last channel operation has completed. */
export type StreamJob = (done: () => void) => void;

/**
 * The blocking and non-blocking channel modes (Selvarajan §6.4.5; MPICH's chbeager.c/chbrndv.c
 * against chneager.c/chnrndv.c): non-blocking starts every message's part at once and lets them
 * overlap on the stream; blocking starts a peer's next part only when the one before has been
 * handed to the transport in full, as a blocking MPID_SendControl / MPID_SendChannel would return.
 */
export class SendSequencer {
  readonly #queues: (Fifo<StreamJob> | undefined)[] = [];
  readonly #busy: boolean[] = [];

  constructor(readonly blocking: boolean) {}

  start(peer: number, job: StreamJob): void {
    if (!this.blocking) return job(noop);
    if (this.#busy[peer] === true) {
      (this.#queues[peer] ??= new Fifo<StreamJob>(8)).push(job);
      return;
    }
    this.#run(peer, job);
  }

  /** Run `job` and those queued behind it; a job done before it returns lets the next run in this loop, not deeper. */
  #run(peer: number, job: StreamJob | undefined): void {
    while (job !== undefined) {
      this.#busy[peer] = true;
      let inside = true;
      let finishedInside = false;
      let finished = false;
      job(() => {
        if (finished) return;
        finished = true;
        if (inside) finishedInside = true;
        else this.#run(peer, this.#queues[peer]?.shift());
      });
      inside = false;
      if (!finishedInside) return;
      job = this.#queues[peer]?.shift();
    }
    this.#busy[peer] = false;
  }
}

function noop(): void {}
