import { DatError, DatStatus, type Endpoint, type PeerMemory, type PeerRegions } from '@dapl/core';
import { describeValue, requireFunction } from '@dapl/core/provider-kit';
import type { Logger } from 'pino';
import { ShmEndpoint } from './ep.js';
import type { Pollable, ShmProgress } from './progress.js';

/**
 * The 'peer-memory' extension of one shm IA: per connection, two regions of a SharedArrayBuffer the
 * client allocates beside the rings (uDAPL's DAT_MEM_TYPE_SHARED_VIRTUAL, given per connection; a
 * consumer lays its queues in them as MPICH nemesis lays its fastboxes in shared memory), the
 * peer's doorbell to wake it, and pollers the IA's progress engine runs with its endpoints.
 */
export class ShmPeerMemory implements PeerMemory {
  readonly #address: string;
  readonly #progress: ShmProgress;
  readonly #logger: Logger;

  /** Built before its IA (the IA's constructor hands it to `IaBase`): it knows the IA by its engine. */
  constructor(
    /**
     * Bytes of each region of the connections this IA requests. A connection it accepted has the
     * client's size (the views' `length`), the same where the ranks share their settings.
     */
    readonly bytes: number,
    address: string,
    progress: ShmProgress,
    logger: Logger,
  ) {
    this.#address = address;
    this.#progress = progress;
    this.#logger = logger;
  }

  /** The same frozen views on every call, made when the endpoint attached to its connection. */
  regions(ep: Endpoint): PeerRegions | undefined {
    return this.#endpoint(ep).peerRegions;
  }

  notify(ep: Endpoint): void {
    this.#endpoint(ep).notifyPeer();
  }

  /**
   * A poller that throws is removed and its error logged: it would otherwise throw on every poll,
   * and the engine must go on polling the IA's connections. Pollers end with the IA.
   */
  addPoller(poll: () => boolean): () => void {
    requireFunction(poll, 'poll');
    if (this.#progress.closed) {
      throw new DatError(DatStatus.INVALID_HANDLE, 'cannot addPoller: the IA has been closed', { argument: 'ia', subtype: 'DAT_INVALID_HANDLE_IA' });
    }
    const progress = this.#progress;
    const logger = this.#logger;
    const poller: Pollable = {
      poll(): boolean {
        try {
          return poll() === true;
        } catch (err) {
          progress.remove(poller);
          logger.error({ err }, 'a peer-memory poller threw: it is removed and polled no more');
          return false;
        }
      },
    };
    progress.add(poller);
    return () => progress.remove(poller);
  }

  /** `ep` as an endpoint of this IA (whose engine is ours). */
  #endpoint(ep: unknown): ShmEndpoint {
    if (!(ep instanceof ShmEndpoint) || ep.ia.progress !== this.#progress) {
      throw new DatError(DatStatus.INVALID_HANDLE, `ep must be an endpoint of ${this.#address}, got ${describeValue(ep)}`, { argument: 'ep', subtype: 'DAT_INVALID_HANDLE_EP' });
    }
    return ep;
  }
}
