import type { MpiError } from '../../api/errors.js';
import type { RequestTable } from '../../adi/request-table.js';
import type { RecvRequest, SendRequest } from '../../adi/requests.js';
import type { DeviceHost } from '../device.js';
import type { PeerLink } from './peer-link.js';
import { NoticeBatch } from './receive-notices.js';
import { AdvertisedRecv } from './receiver-initiated.js';
import type { RendezvousRecv } from './rendezvous-protocol.js';

/**
 * The peer of `link` is lost with `error` (once): what waits to go to it, our sends it has not
 * answered and matched receives waiting for its data fail, and the host learns of it.
 */
export function failLink(link: PeerLink, error: MpiError, sendTable: RequestTable<SendRequest>, recvTable: RequestTable<RecvRequest>, host: DeviceHost): void {
  if (link.failed !== undefined) return;
  link.failed = error;
  link.openAdvertise = link.openRevoke = undefined;
  for (const item of link.takeBacklog()) if (!(item instanceof NoticeBatch) && !item.done) item.fail(error);
  link.claimable.clear();
  for (const request of sendTable.values()) {
    if (request.peer === link.peer) {
      sendTable.take(request.id);
      request.fail(error);
    }
  }
  // Matched receives still waiting for this peer's data (a CTS or an adopted advertisement).
  for (const request of recvTable.values()) {
    const state = request.deviceState;
    const waitsOnLink = state instanceof AdvertisedRecv ? state.link === link : (state as RendezvousRecv | undefined)?.arrival.link === link;
    if (waitsOnLink && request.handle === undefined) {
      recvTable.take(request.id);
      request.fail(error);
    }
  }
  host.peerFailed(link.peer, error);
}
