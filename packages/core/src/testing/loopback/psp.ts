import { PairingConnectionRequest, type BoundPsp } from '../../provider-kit/index.js';
import type { LoopbackEndpoint } from './ep.js';
import type { LoopbackIa } from './ia.js';

export type LoopbackPsp = BoundPsp<LoopbackIa>;

/** A request from a client endpoint, answered by wiring the two endpoints together. */
export class LoopbackConnectionRequest extends PairingConnectionRequest<LoopbackEndpoint> {
  protected later(_from: LoopbackEndpoint, action: () => void): void {
    queueMicrotask(action);
  }
}
