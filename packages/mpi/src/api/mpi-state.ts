import type { DaplJob, Lmr } from '@dapl/core';
import type { CollCounters } from '../coll/collectives.js';
import type { MpiParameters } from './mpi-parameters.js';
import type { PointToPoint } from '../adi/point-to-point.js';
import type { Device } from '../device/device.js';
import type { AttachedBuffer } from './attached-buffer.js';
import type { Comm } from './comm.js';
import type { Topologies } from './topologies.js';
import type { InterComm } from './inter-comm.js';
import { ErrorClass, MpiError } from './errors.js';
import { PolledWait } from '../adi/polled-wait.js';
import type { WaitDeclarer } from './request.js';

/** Context ids: world uses 0 (point-to-point) and 1 (collective), self 2 and 3; new communicators take the next even id. */
export const WORLD_CONTEXT = 0;
export const SELF_CONTEXT = 2;
export const FIRST_FREE_CONTEXT = 4;

/**
 * What makes intercommunicators (`createIntercomm`), given by `Mpi` so that `Comm` reaches its
 * subclass `InterComm` without importing it (a module cycle through a base class breaks loading).
 */
export interface InterCommFactory {
  create(state: MpiState, comm: Comm, localLeader: number, peerComm: Comm | null, remoteLeader: number, tag: number): Promise<InterComm>;
}

/** One rank's MPI library state, shared by its communicators. */
export class MpiState {
  attached: AttachedBuffer | undefined = undefined;
  /** Lowest context id this process has not used; communicator creation agrees on the maximum. */
  nextContext = FIRST_FREE_CONTEXT;
  finalized = false;
  world: Comm | undefined = undefined;
  self: Comm | undefined = undefined;
  intercomms: InterCommFactory | undefined = undefined;
  readonly collCounters: CollCounters = { hwBarriers: 0, swBarriers: 0, hwBcasts: 0, swBcasts: 0 };
  /** The registered buffer hardware broadcasts go through (made on first use). */
  hwSegment: Lmr | undefined = undefined;
  /** Settles when this rank's last hardware collective has (they go one at a time). */
  hwTail: Promise<void> = Promise.resolve();

  constructor(
    readonly job: DaplJob,
    readonly p2p: PointToPoint,
    readonly device: Device,
    readonly parameters: MpiParameters,
    /** What `comm.cartCreate` and kin build with. */
    readonly topologies: Topologies,
  ) {
    const runtime = job.runtime;
    const windowUs = parameters.pollWait === 'on' ? job.ia.query().dequeuePollUs : 0;
    const poll = device.poll === undefined || windowUs === 0 ? undefined : new PolledWait(device.poll.bind(device), windowUs);
    this.polledWait = poll;
    this.waits = {
      declareWait: runtime.declareWait === undefined ? undefined : runtime.declareWait.bind(runtime),
      progressUntil: poll === undefined ? undefined : (core) => poll.until(core),
    };
  }

  /** The blocking calls' polling, where the device and provider offer it (its counts are in `Mpi.counters`). */
  readonly polledWait: PolledWait | undefined;
  /** What a request's wait goes through: the runtime's declaration of it, and the transport's polling before it awaits. */
  readonly waits: WaitDeclarer;

  get worldRank(): number {
    return this.job.rank;
  }

  /** Throws ERR_OTHER once `finalize` has been called. */
  requireActive(): void {
    if (this.finalized) throw new MpiError(ErrorClass.ERR_OTHER, 'MPI has been finalized in this rank: no MPI call may follow Mpi.finalize()');
  }
}
