import type { Logger } from 'pino';
import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';
import type { EndpointAttributes, EndpointCreateAttributes, EndpointEvds } from '../dat/endpoint.js';
import type { EvdOptions } from '../dat/evd.js';
import { EXTENSION_NAMES, type DatExtensions, type ExtensionName } from '../dat/extensions.js';
import type { IaAttributes, IaLimits, InterfaceAdapter } from '../dat/ia.js';
import { DTO_CAPABILITIES, type DatProvider, type DtoCapability } from '../dat/provider.js';
import type { ProtectionZone } from '../dat/pz.js';
import type { SrqOptions } from '../dat/srq.js';
import type { EndpointBase, KitEvds } from './endpoint-base.js';
import { EvdQueue } from './evd-queue.js';
import { KitPz } from './memory.js';
import type { PspBase } from './psp-base.js';
import { RmrTable } from './rmr-table.js';
import { KitSrq } from './srq.js';
import { wallTimeout } from '../runtime/wall-clock.js';
import { describe, requireHandle, requireInteger, requireObject, requireOptionKeys } from './validate.js';

/** What a provider's IA passes to the `IaBase` constructor. */
export interface IaBaseInit {
  readonly provider: DatProvider;
  readonly name: string;
  readonly address: string;
  readonly limits: IaLimits;
  /** The optional DTOs this IA offers (declared ∩ requested: see `effectiveCapabilities`). */
  readonly capabilities: readonly DtoCapability[];
  /** The provider completes `localCompletion` requests early (see `IaAttributes.localCompletion`); default false. */
  readonly localCompletion?: boolean;
  /** See `IaAttributes.dequeuePollUs`; default 0. A provider above 0 overrides `pollProgress`. */
  readonly dequeuePollUs?: number;
  readonly extensions?: Partial<DatExtensions>;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly logger: Logger;
  readonly defaultConnectTimeoutMs?: number;
  readonly defaultEvdDepth?: number;
}

const ENDPOINT_DEFAULT_DTOS = 1024;

/**
 * What every provider's IA shares: object creation with argument checks, the RMR table,
 * counters, extension lookup, and close(). A provider fills `listen`, `newEndpoint`, `shutdown`.
 */
const ENDPOINT_ATTRIBUTE_KEYS: readonly string[] = ['maxRecvDtos', 'maxRequestDtos', 'maxRecvIov', 'maxRequestIov', 'srq'];
const SRQ_OPTION_KEYS: readonly string[] = ['maxRecvs', 'lowWatermark', 'evd'];

export abstract class IaBase implements InterfaceAdapter {
  readonly provider: DatProvider;
  readonly name: string;
  readonly address: string;
  readonly limits: IaLimits;
  readonly logger: Logger;
  readonly defaultConnectTimeoutMs: number;
  readonly rmrTable = new RmrTable();
  private readonly capabilitySet: ReadonlySet<DtoCapability>;
  private readonly localCompletion: boolean;
  private readonly dequeuePollUs: number;
  private readonly extensionMap: Partial<DatExtensions>;
  private readonly parameterValues: Readonly<Record<string, unknown>>;
  private readonly defaultEvdDepth: number;
  private readonly counterValues: Record<string, number> = { bufferedBytes: 0, peakBufferedBytes: 0, connections: 0 };
  private readonly endpoints = new Set<EndpointBase>();
  private readonly psps = new Set<PspBase>();
  private readonly evds = new Set<EvdQueue>();
  private readonly srqs = new Set<KitSrq>();
  private closing: Promise<void> | undefined;
  private isClosed = false;

  constructor(init: IaBaseInit) {
    this.provider = init.provider;
    this.name = init.name;
    this.address = init.address;
    this.limits = init.limits;
    this.logger = init.logger;
    this.capabilitySet = new Set(init.capabilities);
    this.localCompletion = init.localCompletion ?? false;
    this.dequeuePollUs = init.dequeuePollUs ?? 0;
    this.extensionMap = init.extensions ?? {};
    this.parameterValues = init.parameters;
    this.defaultConnectTimeoutMs = init.defaultConnectTimeoutMs ?? 10_000;
    this.defaultEvdDepth = Math.min(init.defaultEvdDepth ?? 16_384, init.limits.maxEvdQueueDepth);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  // ---- provider hooks ----------------------------------------------------------------------

  /** Open a listener on `connQual`, or on one the provider picks when undefined. */
  protected abstract listen(connQual: number | undefined, evd: EvdQueue): Promise<PspBase>;
  /** The provider's endpoint, built by `createEp` after it has checked the arguments. */
  protected abstract newEndpoint(pz: KitPz, evds: KitEvds, attributes: EndpointAttributes): EndpointBase;
  /** Release transport resources after every object was torn down. */
  protected abstract shutdown(): Promise<void>;
  /** Reject malformed addresses with INVALID_ADDRESS before a connection is attempted. */
  validateAddress(_address: string): void {}
  /** Memory of `bytes` is being registered (a simulated provider charges its cost here). */
  onRegister(_bytes: number): void {}
  /**
   * Run `action` after `ms` of this IA's time unless the returned function cancels it first (a
   * connect timeout). Wall-clock time here; a simulated IA times on its rank's virtual clock.
   */
  startTimer(ms: number, action: () => void): () => void {
    return wallTimeout(ms * 1e6, action);
  }
  /**
   * When a receive posted now counts as posted, for a provider that compares it with a message's
   * arrival (a simulated one: its rank's virtual clock). 0 elsewhere.
   */
  recvPostTimeNs(): number {
    return 0;
  }

  // ---- InterfaceAdapter ----------------------------------------------------------------------

  query(): IaAttributes {
    this.checkOpen('query');
    return {
      provider: this.provider.name,
      name: this.name,
      address: this.address,
      limits: this.limits,
      capabilities: DTO_CAPABILITIES.filter((c) => this.capabilitySet.has(c)),
      localCompletion: this.localCompletion,
      dequeuePollUs: this.dequeuePollUs,
      sharedReceiveQueues: true,
      extensions: EXTENSION_NAMES.filter((n) => this.extensionMap[n] !== undefined),
      parameters: this.parameterValues,
    };
  }

  /**
   * Kit hook: move what the provider can move now, synchronously (poll its queues once), so that
   * `evd.dequeue()` on an empty queue finds what a peer has written (see `IaAttributes.dequeuePollUs`).
   * True if anything moved. The default moves nothing: its completions arrive on their own.
   */
  pollProgress(): boolean {
    return false;
  }

  counters(): Readonly<Record<string, number>> {
    return { ...this.counterValues };
  }

  createPz(): ProtectionZone {
    this.checkOpen('createPz');
    return new KitPz(this);
  }

  createEvd(options: EvdOptions = {}): EvdQueue {
    this.checkOpen('createEvd');
    requireObject(options, 'options');
    requireOptionKeys(options, ['queueDepth'], 'createEvd');
    const depth = requireInteger(options.queueDepth ?? this.defaultEvdDepth, 'options.queueDepth', 1, this.limits.maxEvdQueueDepth);
    const evd = new EvdQueue(this, depth);
    this.evds.add(evd);
    return evd;
  }

  async createPsp(connQual: number, evd: EvdQueue): Promise<PspBase> {
    this.checkOpen('createPsp');
    const [lo, hi] = this.limits.connQualRange;
    requireInteger(connQual, 'connQual', lo, hi);
    return this.track(await this.listen(connQual, this.requireEvd(evd, 'evd')));
  }

  async createPspAny(evd: EvdQueue): Promise<PspBase> {
    this.checkOpen('createPspAny');
    return this.track(await this.listen(undefined, this.requireEvd(evd, 'evd')));
  }

  createEp(pz: ProtectionZone, evds: EndpointEvds, attributes: EndpointCreateAttributes = {}): EndpointBase {
    this.checkOpen('createEp');
    const zone = requireHandle(pz, 'pz', (v): v is KitPz => v instanceof KitPz && v.ia === this, 'PZ', 'DAT_INVALID_HANDLE_PZ');
    requireObject(evds, 'evds');
    const kitEvds: KitEvds = {
      recv: this.requireEvd(evds.recv, 'evds.recv'),
      request: this.requireEvd(evds.request, 'evds.request'),
      connect: this.requireEvd(evds.connect, 'evds.connect'),
    };
    requireObject(attributes, 'attributes');
    requireOptionKeys(attributes, ENDPOINT_ATTRIBUTE_KEYS, 'createEp', 'attributes');
    const l = this.limits;
    const attrs: EndpointAttributes = {
      maxRecvDtos: requireInteger(attributes.maxRecvDtos ?? Math.min(ENDPOINT_DEFAULT_DTOS, l.maxRecvDtos), 'attributes.maxRecvDtos', 1, l.maxRecvDtos),
      maxRequestDtos: requireInteger(attributes.maxRequestDtos ?? Math.min(ENDPOINT_DEFAULT_DTOS, l.maxRequestDtos), 'attributes.maxRequestDtos', 1, l.maxRequestDtos),
      maxRecvIov: requireInteger(attributes.maxRecvIov ?? l.maxIov, 'attributes.maxRecvIov', 1, l.maxIov),
      maxRequestIov: requireInteger(attributes.maxRequestIov ?? l.maxIov, 'attributes.maxRequestIov', 1, l.maxIov),
    };
    const srq = attributes.srq === undefined ? undefined : this.requireSrq(attributes.srq, zone);
    const ep = this.newEndpoint(zone, kitEvds, attrs);
    if (srq !== undefined) ep.kitAttachSrq(srq);
    this.endpoints.add(ep);
    return ep;
  }

  createSrq(pz: ProtectionZone, options: SrqOptions): KitSrq {
    this.checkOpen('createSrq');
    const zone = requireHandle(pz, 'pz', (v): v is KitPz => v instanceof KitPz && v.ia === this, 'PZ', 'DAT_INVALID_HANDLE_PZ');
    requireObject(options, 'options');
    requireOptionKeys(options, SRQ_OPTION_KEYS, 'createSrq');
    const maxRecvs = requireInteger(options.maxRecvs, 'options.maxRecvs', 1, this.limits.maxRecvDtos);
    const lowWatermark = requireInteger(options.lowWatermark ?? 0, 'options.lowWatermark', 0, maxRecvs);
    const evd = options.evd === undefined ? undefined : this.requireEvd(options.evd, 'options.evd');
    const srq = new KitSrq(this, zone, maxRecvs, lowWatermark, evd);
    this.srqs.add(srq);
    return srq;
  }

  extension<K extends ExtensionName>(name: K): DatExtensions[K] | undefined {
    this.checkOpen('extension');
    if (!EXTENSION_NAMES.includes(name)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `name must be one of ${EXTENSION_NAMES.join(', ')}, got ${describe(name)}`, { argument: 'name' });
    }
    return this.extensionMap[name];
  }

  /** Every call waits for the same close: a second one does not return before the first is done. */
  close(): Promise<void> {
    return (this.closing ??= this.closeOnce());
  }

  private async closeOnce(): Promise<void> {
    for (const ep of [...this.endpoints]) if (!ep.freed) ep.free();
    for (const psp of [...this.psps]) if (!psp.freed) psp.free();
    for (const srq of this.srqs) srq.destroy();
    this.srqs.clear();
    this.isClosed = true;
    for (const evd of this.evds) evd.destroy();
    this.evds.clear();
    await this.shutdown();
  }

  // ---- kit bookkeeping -------------------------------------------------------------------

  /** Whether this IA offers the optional DTO `capability`. */
  hasCapability(capability: DtoCapability): boolean {
    return this.capabilitySet.has(capability);
  }

  /**
   * Before operation `op`.
   * @throws DatError INVALID_HANDLE once the IA is closed.
   */
  checkOpen(op: string): void {
    if (this.isClosed) throw new DatError(DatStatus.INVALID_HANDLE, `cannot ${op}: the IA has been closed`, { argument: 'ia', subtype: 'DAT_INVALID_HANDLE_IA' });
  }

  /** Bytes the provider holds for the consumer (e.g. a stalled stream's unread input). */
  adjustBuffered(delta: number): void {
    const c = this.counterValues;
    c.bufferedBytes += delta;
    if (c.bufferedBytes > c.peakBufferedBytes) c.peakBufferedBytes = c.bufferedBytes;
  }

  /** Add `delta` to the named counter that `counters()` reports. */
  count(name: string, delta = 1): void {
    this.counterValues[name] = (this.counterValues[name] ?? 0) + delta;
  }

  /** Kit bookkeeping: a connection of this IA came up (the `connections` counter). */
  connectionOpened(): void {
    this.counterValues.connections++;
  }

  /** Kit bookkeeping: a connection of this IA ended. */
  connectionClosed(): void {
    this.counterValues.connections--;
  }

  /** Endpoints not yet freed, for providers that must act on all of them (a crash, a broken link). */
  protected liveEndpoints(): EndpointBase[] {
    return [...this.endpoints];
  }

  /** Kit bookkeeping: a freed endpoint leaves the IA's set (the IA no longer tears it down on close). */
  forgetEndpoint(ep: EndpointBase): void {
    this.endpoints.delete(ep);
  }

  /** Kit bookkeeping: a freed PSP leaves the IA's set. */
  forgetPsp(psp: PspBase): void {
    this.psps.delete(psp);
  }

  /** A freed SRQ. */
  forgetSrq(srq: KitSrq): void {
    this.srqs.delete(srq);
  }

  /** A freed EVD. */
  forgetEvd(evd: EvdQueue): void {
    this.evds.delete(evd);
  }

  /** A PSP whose listener came up: kept, or freed at once if the IA closed while it was starting. */
  private track(psp: PspBase): PspBase {
    if (this.isClosed) {
      psp.free();
      throw new DatError(DatStatus.INVALID_HANDLE, 'cannot create the PSP: the IA was closed while its listener started', { argument: 'ia', subtype: 'DAT_INVALID_HANDLE_IA' });
    }
    this.psps.add(psp);
    return psp;
  }

  /** An SRQ of this IA, not freed, in the endpoint's PZ (a receive fills memory of its own zone only). */
  private requireSrq(srq: unknown, zone: KitPz): KitSrq {
    const queue = requireHandle(srq, 'attributes.srq', (v): v is KitSrq => v instanceof KitSrq && v.ia === this, 'SRQ', 'DAT_INVALID_HANDLE_SRQ');
    if (queue.pz !== zone) {
      throw new DatError(DatStatus.INVALID_PARAMETER, 'attributes.srq: the SRQ belongs to another PZ than the endpoint', { argument: 'attributes.srq' });
    }
    return queue;
  }

  private requireEvd(evd: unknown, argument: string): EvdQueue {
    return requireHandle(evd, argument, (v): v is EvdQueue => v instanceof EvdQueue && v.ia === this, 'EVD', 'DAT_INVALID_HANDLE_EVD');
  }
}

/**
 * The optional DTOs an IA offers: the provider's declared set, narrowed to `requested`
 * when the consumer passed capability hints. Unknown names are INVALID_PARAMETER.
 */
export function effectiveCapabilities(declared: readonly DtoCapability[], requested: readonly DtoCapability[] | undefined): DtoCapability[] {
  if (requested === undefined) return [...declared];
  if (!Array.isArray(requested)) throw new DatError(DatStatus.INVALID_PARAMETER, `options.capabilities must be an array, got ${describe(requested)}`, { argument: 'options.capabilities' });
  for (const c of requested) {
    if (!DTO_CAPABILITIES.includes(c)) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `options.capabilities: unknown capability ${describe(c)}; known: ${DTO_CAPABILITIES.join(', ')}`, { argument: 'options.capabilities' });
    }
  }
  return declared.filter((c) => requested.includes(c));
}
