import { DatError, DatStatus, type EndpointAttributes, type ProtectionZone } from '@dapl/core';
import { IaBase, ListenerTable, type EvdQueue, type IaBaseInit, type KitEvds, type KitPz, type PspBase } from '@dapl/core/provider-kit';
import { allocatePeerMemory, ConnectionMemory } from './connection-memory.js';
import { ShmControl, type ControlMessage } from './control.js';
import { ShmEndpoint } from './ep.js';
import { ShmPeerMemory } from './peer-memory.js';
import { ShmProgress } from './progress.js';
import type { SpinGovernor } from './spin-governor.js';
import { ShmConnectionRequest } from './psp.js';
import { ShmPz } from './pz.js';
import { DirectoryRmrTable } from './window-directory.js';

const FIRST_ANY_CONN_QUAL = 1024;

/** A client's request on its way: the endpoint, the server's address, and the memory it offered. */
interface PendingRequest {
  /** Undefined once the client gave up: a late accept is then answered with 'abandon'. */
  readonly ep: ShmEndpoint | undefined;
  readonly to: string;
  readonly memory: SharedArrayBuffer;
  readonly peerMemory: SharedArrayBuffer | undefined;
}

export interface ShmIaSettings {
  readonly jobKey: Uint8Array;
  readonly spinUs: number;
  /** Judges, while the engine polls, whether polling pays (`spin=auto`); none: poll for `spinUs` regardless. */
  readonly governor?: SpinGovernor;
  readonly ringCapacity: number;
  readonly fragmentBytes: number;
  /** Bytes of each peer-memory region of a connection this IA requests; 0: none, and no 'peer-memory' extension. */
  readonly peerRegionBytes: number;
}

/**
 * An IA of the shm provider: its listeners, its progress engine and doorbell, and its side of the
 * job's control channel, where connections are set up and lost peers reported.
 */
export class ShmIa extends IaBase {
  /** Windows over SharedArrayBuffers are also published for the peers to reach directly. */
  override readonly rmrTable = new DirectoryRmrTable(
    (window) => (window.pz as ShmPz).zone,
    (id, memory) => {
      this.#memoryOf(this.address).set(id, new Uint8Array(memory));
      this.control.send({ t: 'memory', to: '*', from: this.address, id, memory });
    },
  );
  readonly progress: ShmProgress;
  /** The memories peers announced, by their address and id. */
  readonly #peerMemories = new Map<string, Map<number, Uint8Array>>();
  readonly control: ShmControl;
  readonly fragmentBytes: number;
  readonly #ringCapacity: number;
  readonly #peerRegionBytes: number;
  readonly #listeners = new ListenerTable<ShmIa>();
  /** Our clients' requests awaiting an answer, by id. */
  readonly #requests = new Map<number, PendingRequest>();
  /** Our server endpoints that accepted and await the client's confirmation, by id. */
  readonly #accepted = new Map<number, ShmEndpoint>();
  #nextId = 1;
  #nextAnyConnQual = FIRST_ANY_CONN_QUAL;

  constructor(init: IaBaseInit, settings: ShmIaSettings) {
    // The extension goes to IaBase, so it is made before this IA, with the engine it adds pollers to.
    const progress = new ShmProgress(settings.spinUs, settings.governor);
    const bytes = settings.peerRegionBytes;
    const peerMemory = bytes > 0 ? new ShmPeerMemory(bytes, init.address, progress, init.logger) : undefined;
    super(peerMemory === undefined ? init : { ...init, extensions: { ...init.extensions, 'peer-memory': peerMemory } });
    this.progress = progress;
    this.#ringCapacity = settings.ringCapacity;
    this.#peerRegionBytes = bytes;
    this.fragmentBytes = settings.fragmentBytes;
    this.control = new ShmControl(settings.jobKey, init.address, {
      onMessage: (message) => this.#onMessage(message),
      onThreadExit: (thread) => this.#lose(undefined, thread, `the peer's thread ${thread} ended`),
    });
  }

  /** A consumer spinning on `evd.dequeue()`: the rings polled once, here and now. */
  override pollProgress(): boolean {
    return this.progress.pollNow();
  }

  override validateAddress(address: string): void {
    if (!address.startsWith('shm:')) {
      throw new DatError(DatStatus.INVALID_ADDRESS, `address must be an shm IA's address (shm:<pid>.<thread>.<n>), got ${JSON.stringify(address)}`, { argument: 'address' });
    }
  }

  /** A zone of this IA whose `allocate` gives shared memory (a SharedArrayBuffer) the peer thread reaches directly. */
  override createPz(): ProtectionZone {
    this.checkOpen('createPz');
    return new ShmPz(this);
  }

  protected async listen(connQual: number | undefined, evd: EvdQueue): Promise<PspBase> {
    return this.#listeners.listen(this, connQual, evd, () => this.#nextAnyConnQual++);
  }

  /** The provider's endpoint, built by the kit's `createEp` after it has checked the arguments. */
  protected newEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): ShmEndpoint {
    return new ShmEndpoint(this, pz, evds, attributes);
  }

  // ---- connection set-up --------------------------------------------------------------------

  /** Send `ep`'s connection request with fresh connection memory and peer memory; returns the request's id. */
  requestConnection(ep: ShmEndpoint, address: string, connQual: number, privateData: Uint8Array): number {
    const id = this.#nextId++;
    const memory = ConnectionMemory.allocate(this.#ringCapacity);
    const peerMemory = allocatePeerMemory(this.#peerRegionBytes);
    this.#requests.set(id, { ep, to: address, memory, peerMemory });
    const directory = this.rmrTable.directory.buffer as SharedArrayBuffer;
    this.control.send({ t: 'request', to: address, from: this.address, id, connQual, privateData, memory, peerMemory, doorbell: this.progress.doorbell.buffer, directory, zone: ep.zone });
    return id;
  }

  /** The endpoint of request `id` gave up its connect (cancelled or freed): an answer that still comes finds no endpoint. */
  forgetRequest(id: number): void {
    const pending = this.#requests.get(id);
    if (pending !== undefined) this.#requests.set(id, { ...pending, ep: undefined });
  }

  /** A server endpoint accepted: it waits for the client's confirmation under the returned id. */
  expectConfirmation(ep: ShmEndpoint): number {
    const id = this.#nextId++;
    this.#accepted.set(id, ep);
    return id;
  }

  #onMessage(m: ControlMessage): void {
    if (this.closed) return;
    switch (m.t) {
      case 'request': {
        const psp = this.#listeners.get(this.address, m.connQual);
        if (psp === undefined || psp.freed) this.control.send({ t: 'refuse', to: m.from, id: m.id, reason: `nothing listens at ${this.address} conn-qual ${m.connQual}` });
        else psp.raiseRequest(new ShmConnectionRequest(this, psp, m));
        return;
      }
      case 'refuse':
        this.#answered(m.id)?.ep?.refused('connection-non-peer-rejected', m.reason);
        return;
      case 'reject':
        this.#answered(m.id)?.ep?.rejected(m.privateData);
        return;
      case 'accept': {
        const pending = this.#answered(m.id);
        if (pending === undefined) return;
        const ok = pending.ep?.accepted(pending.memory, pending.peerMemory, m.doorbell, m.privateData, m.directory, m.zone) ?? false;
        this.control.send(ok ? { t: 'ready', to: pending.to, server: m.server } : { t: 'abandon', to: pending.to, server: m.server });
        return;
      }
      case 'ready':
      case 'abandon': {
        const ep = this.#accepted.get(m.server);
        this.#accepted.delete(m.server);
        if (ep === undefined) return;
        if (m.t === 'ready') ep.confirmed();
        else ep.abandoned();
        return;
      }
      case 'memory':
        this.#memoryOf(m.from).set(m.id, new Uint8Array(m.memory));
        return;
      case 'lost':
        this.#lose(m.address, -1, `the peer IA ${m.address} was lost`);
    }
  }

  /** A peer's memory `id`, if it was announced. */
  peerMemory(address: string, id: number): Uint8Array | undefined {
    return this.#peerMemories.get(address)?.get(id);
  }

  #memoryOf(address: string): Map<number, Uint8Array> {
    let memories = this.#peerMemories.get(address);
    if (memories === undefined) this.#peerMemories.set(address, (memories = new Map()));
    return memories;
  }

  #answered(id: number): PendingRequest | undefined {
    const ep = this.#requests.get(id);
    this.#requests.delete(id);
    return ep;
  }

  /** Every connection (and pending request) to `address`, or to any IA of thread `thread`, breaks. */
  #lose(address: string | undefined, thread: number, reason: string): void {
    for (const ep of this.liveEndpoints() as ShmEndpoint[]) if (ep.peerIs(address, thread)) ep.broken(reason);
  }

  /** Vanish as a killed thread would: peers hear of it only through the loss notice. */
  async crash(): Promise<void> {
    this.control.send({ t: 'lost', to: '*', address: this.address });
    for (const ep of this.liveEndpoints() as ShmEndpoint[]) ep.vanish();
    await this.close();
  }

  protected async shutdown(): Promise<void> {
    this.progress.close();
    this.control.close();
    this.#requests.clear();
    this.#accepted.clear();
    this.#peerMemories.clear();
  }
}
