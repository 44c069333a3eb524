import { DatError, DatStatus, type EndpointAttributes } from '@dapl/core';
import { SimIa, type DtoRequest, type IaBaseInit, type KitEvds, type KitPz, type SimIaPlace } from '@dapl/core/provider-kit';
import { CombufEndpoint } from './ep.js';
import { CombufHwCollectives, type HwCaller } from './hw-collectives.js';
import type { CombufFabric } from './fabric.js';
import { TcwCache } from './tcw-cache.js';

const ADDRESS = /^combuf:(0|[1-9][0-9]{0,6})$/;
const COUNTERS = ['tcwCreated', 'tcwReused', 'sendRightsAcquired'] as const;

/**
 * One SR8000 node's NIA: node `node`, address `combuf:<node>`. It keeps the node's TCWs (an LRU
 * cache) and the send rights it holds, and says what each transfer costs the posting CPU.
 */
export class CombufIa extends SimIa {
  declare readonly fabric: CombufFabric;
  private readonly tcws: TcwCache;
  /** Nodes this node holds a send right to (`combuf_get_sendright`, Tatebe et al. §5.1). */
  private readonly sendRights = new Set<number>();
  /** Small ids for LMRs and endpoints, to name addresses in TCW keys. */
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;

  constructor(init: IaBaseInit, place: SimIaPlace<CombufFabric>) {
    const { fabric, node, clock, rank } = place;
    // The extension reads `closed` from this IA, which exists only after super().
    const opened: { ia?: CombufIa } = {};
    const caller: HwCaller = {
      node,
      address: init.address,
      clock,
      rank,
      timeoutMs: fabric.params.connectTimeoutMs,
      get closed() {
        return opened.ia?.closed ?? false;
      },
    };
    super({ ...init, extensions: { ...init.extensions, 'hw-collectives': new CombufHwCollectives(fabric, caller) } }, place);
    opened.ia = this;
    this.tcws = new TcwCache(fabric.params.tcwCacheSize);
    for (const name of COUNTERS) this.count(name, 0);
  }

  /**
   * CPU time the posting rank spends before the NIA can start `req` on `ep`: the send right on the
   * first transfer to the peer's node, a TCW created unless one for (source, target, size,
   * destination) exists (Tatebe et al. §4.1), a gather copy when the local iov has several segments, the kick.
   */
  transferSetupNs(ep: CombufEndpoint, req: DtoRequest): number {
    const p = this.fabric.params;
    const peer = ep.peer;
    let ns = p.kickOverheadNs;
    if (peer === undefined) return ns;
    if (!this.sendRights.has(peer.node)) {
      this.sendRights.add(peer.node);
      this.count('sendRightsAcquired');
      ns += p.sendRightNs;
    }
    if (this.tcws.use(this.tcwKey(peer, req))) this.count('tcwReused');
    else {
      this.count('tcwCreated');
      ns += p.tcwCreateNs;
    }
    // A read lands in the local iov (scattered on arrival, progress.ts); the others leave from it.
    if (req.op !== 'rdma-read' && req.iov.length > 1) ns += req.length / p.hostCopyBytesPerNs;
    return ns;
  }

  /** Names the local area, the remote area, the size and the destination node of a transfer. */
  private tcwKey(peer: CombufEndpoint, req: DtoRequest): string {
    const local = req.iov.length === 1 ? `${this.idOf(req.iov[0].lmr)}+${req.iov[0].offset}` : req.iov.length === 0 ? '-' : 'gather';
    // A send lands in the peer endpoint's receive area; RDMA names the window and offset.
    const remote = req.remote === undefined ? `ep${this.idOf(peer)}` : `${req.remote.rmrContext}+${req.remote.targetOffset}`;
    return `${req.op === 'rdma-read' ? 'get' : 'put'} ${local} ${remote} ${req.length} @${peer.node}`;
  }

  private idOf(object: object): number {
    let id = this.ids.get(object);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(object, id);
    }
    return id;
  }

  override validateAddress(address: string): void {
    if (!ADDRESS.test(address)) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must look like combuf:<node> (node 0..9999999), got ${JSON.stringify(address.slice(0, 80))}`, { argument: 'address' });
    }
  }

  protected createEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): CombufEndpoint {
    return new CombufEndpoint(this, pz, evds, attributes);
  }
}
