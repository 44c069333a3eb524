import { ConnectionRequestBase } from '@dapl/core/provider-kit';
import type { RequestMessage } from './control.js';
import type { ShmEndpoint } from './ep.js';
import type { ShmIa } from './ia.js';

/** A client's request, answered over the job's control channel. */
export class ShmConnectionRequest extends ConnectionRequestBase<ShmEndpoint> {
  constructor(
    private readonly ia: ShmIa,
    psp: ConstructorParameters<typeof ConnectionRequestBase>[0],
    private readonly message: RequestMessage,
  ) {
    super(psp, message.from, message.privateData);
  }

  protected doAccept(ep: ShmEndpoint, privateData: Uint8Array): void {
    const m = this.message;
    const server = this.ia.expectConfirmation(ep);
    ep.acceptOn(m.memory, m.peerMemory, m.doorbell, m.from, server, m.directory, m.zone);
    this.ia.control.send({ t: 'accept', to: m.from, id: m.id, server, privateData, doorbell: this.ia.progress.doorbell.buffer, directory: this.ia.rmrTable.directory.buffer as SharedArrayBuffer, zone: ep.zone });
  }

  protected doReject(privateData: Uint8Array): void {
    this.ia.control.send({ t: 'reject', to: this.message.from, id: this.message.id, privateData });
  }
}
