import type { RmrTriplet, Runtime } from '@dapl/core';
import { ErrorClass, MpiError } from '../../api/errors.js';
import type { PeerLink } from './peer-link.js';

/**
 * The peers' doorbell windows (the RMR triplets that immediates are rung on), each read from the
 * KVS when its peer is first used rather than all of them at attach: a job of N ranks would
 * otherwise make N² KVS reads and N² peer links, where a rank of a ring or a tree talks to a few
 * peers (16,384 simulated ranks: 268 million of each). A ring that finds its peer's bell still on
 * its way waits for it, in order; under the simulator the read completes before virtual time moves
 * on, so no ring ever waits and no virtual time changes.
 */
export class PeerBells {
  readonly #key: string;
  readonly #onError: (link: PeerLink, error: MpiError) => void;
  #runtime: Runtime | undefined;
  /** Links made before attach published the bells: read once it has. */
  #early: PeerLink[] = [];
  /** Rings waiting for a link's bell, oldest first. */
  readonly #waiting = new Map<PeerLink, ((bell: RmrTriplet) => void)[]>();

  constructor(key: string, onError: (link: PeerLink, error: MpiError) => void) {
    this.#key = key;
    this.#onError = onError;
  }

  /** Publish this rank's bell; collective (the put is visible to every rank after the fence). Then read what links asked for. */
  async publish(runtime: Runtime, bell: RmrTriplet): Promise<void> {
    await runtime.put(`${this.#key}-${runtime.rank}`, `${bell.rmrContext.toString(16)}.${bell.targetOffset}.${bell.length}`);
    await runtime.fence();
    this.#runtime = runtime;
    for (const link of this.#early) this.#read(link);
    this.#early = [];
  }

  /** A new link: start reading its peer's bell. Returns the link. */
  track(link: PeerLink): PeerLink {
    if (this.#runtime === undefined) this.#early.push(link);
    else this.#read(link);
    return link;
  }

  /** Run `ring` with the link's bell: now when it is known, else once it is (rings keep their order). */
  whenKnown(link: PeerLink, ring: (bell: RmrTriplet) => void): void {
    if (link.bell !== undefined) return ring(link.bell);
    let rings = this.#waiting.get(link);
    if (rings === undefined) this.#waiting.set(link, (rings = []));
    rings.push(ring);
  }

  #read(link: PeerLink): void {
    const key = `${this.#key}-${link.peer}`;
    this.#runtime!.get(key)
      .then((value) => parseBell(value, key))
      .then(
      (bell) => {
        link.bell = bell;
        const rings = this.#waiting.get(link);
        if (rings === undefined) return;
        this.#waiting.delete(link);
        for (const ring of rings) ring(bell);
      },
      (error: unknown) => {
        this.#waiting.delete(link);
        this.#onError(link, new MpiError(ErrorClass.ERR_PROC_FAILED, `cannot read rank ${link.peer}'s doorbell (KVS key ${key}): ${String(error)}`, { cause: error }));
      },
    );
  }
}

function parseBell(value: string, key: string): RmrTriplet {
  const parts = /^([0-9a-f]+)\.(\d+)\.(\d+)$/.exec(value);
  if (parts === null) throw new MpiError(ErrorClass.ERR_INTERN, `KVS key ${key} holds ${JSON.stringify(value)}, not a doorbell <context hex>.<offset>.<length>`);
  return { rmrContext: BigInt(`0x${parts[1]}`), targetOffset: Number(parts[2]), length: Number(parts[3]) };
}
