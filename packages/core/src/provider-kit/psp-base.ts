import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { Endpoint } from '../dat/endpoint.js';
import type { ConnectionRequest, PublicServicePoint } from '../dat/psp.js';
import { EndpointBase } from './endpoint-base.js';
import type { EvdQueue } from './evd-queue.js';
import type { IaBase } from './ia-base.js';
import { describe, requireBytes } from './validate.js';

const EMPTY = new Uint8Array(0);

/** A listen handle; providers fill `onFree` (close the listener). */
export abstract class PspBase implements PublicServicePoint {
  private isFreed = false;

  constructor(
    readonly ia: IaBase,
    readonly connQual: number,
    readonly evd: EvdQueue,
  ) {
    evd.retain();
  }

  get freed(): boolean {
    return this.isFreed;
  }

  /** Transport: stop listening (the kit has marked the PSP freed and released its EVD). */
  protected abstract onFree(): void;

  /** Provider: a request passed the provider's checks (authentication); hand it to the consumer. */
  raiseRequest(request: ConnectionRequest): void {
    if (!this.isFreed) this.evd.push({ type: 'connection-request', psp: this, request });
  }

  free(): void {
    if (this.isFreed) throw new DatError(DatStatus.INVALID_HANDLE, 'the PSP has already been freed', { argument: 'psp', subtype: 'DAT_INVALID_HANDLE_PSP' });
    this.isFreed = true;
    this.evd.release();
    this.onFree();
    this.ia.forgetPsp(this);
  }
}

/** A connection request awaiting the consumer's answer; providers fill `doAccept` / `doReject`. */
export abstract class ConnectionRequestBase<E extends EndpointBase = EndpointBase> implements ConnectionRequest {
  private answered = false;

  constructor(
    readonly psp: PspBase,
    readonly remoteAddress: string,
    readonly privateData: Uint8Array,
  ) {}

  /** Transport: complete the connection on `ep` (already PASSIVE_CONNECTION_PENDING). */
  protected abstract doAccept(ep: E, privateData: Uint8Array): void;
  /** Transport: send the rejection, with `privateData`, to the requesting endpoint. */
  protected abstract doReject(privateData: Uint8Array): void;

  accept(ep: Endpoint, privateData?: Uint8Array): void {
    this.checkAnswerable('accept');
    if (!(ep instanceof EndpointBase) || ep.ia !== this.psp.ia) {
      throw new DatError(DatStatus.INVALID_HANDLE, `ep must be an endpoint of the PSP's IA, got ${describe(ep)}`, { argument: 'ep', subtype: 'DAT_INVALID_HANDLE_EP' });
    }
    if (ep.freed) throw new DatError(DatStatus.INVALID_HANDLE, 'ep has been freed', { argument: 'ep', subtype: 'DAT_INVALID_HANDLE_EP' });
    const pd = requireBytes(privateData ?? EMPTY, 'privateData', this.psp.ia.limits.maxPrivateData);
    ep.kitBeginAccept();
    this.answered = true;
    this.doAccept(ep as E, pd);
  }

  reject(privateData?: Uint8Array): void {
    this.checkAnswerable('reject');
    const pd = requireBytes(privateData ?? EMPTY, 'privateData', this.psp.ia.limits.maxPrivateData);
    this.answered = true;
    this.doReject(pd);
  }

  private checkAnswerable(op: string): void {
    this.psp.ia.checkOpen(op);
    if (this.answered) {
      throw new DatError(DatStatus.INVALID_STATE, `cannot ${op}: this connection request has already been answered`, { argument: 'cr', subtype: 'DAT_INVALID_STATE_CR' });
    }
  }
}
