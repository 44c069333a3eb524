import { MemAccess, type RegisterableMemory } from '../../dat/memory.js';
import type { ExtensionName } from '../../dat/extensions.js';
import type { DtoCapability, IaOptions } from '../../dat/provider.js';
import type { ProtectionZone } from '../../dat/pz.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { EndpointEvds } from '../../dat/endpoint.js';
import { DatStatus } from '../../dat/status.js';
import type { BadArgumentCase, Scene } from './bad-arguments.js';
import { seg } from './pair.js';

const S = DatStatus;

/** Cast a deliberately wrong value to the parameter type the API declares. */
function bad<T>(value: unknown): T {
  return value as T;
}

function evdsWith(s: Scene, role: keyof EndpointEvds, evd: EventDispatcher): EndpointEvds {
  return { recv: s.side.recv, request: s.side.request, connect: s.side.connect, [role]: evd };
}

function freedPz(s: Scene): ProtectionZone {
  const pz = s.ia.createPz();
  pz.free();
  return pz;
}

function freedEvd(s: Scene): EventDispatcher {
  const evd = s.ia.createEvd();
  evd.free();
  return evd;
}

/** Handles, memory registration, EVDs, endpoint attributes and the IA itself. */
export const OBJECT_CASES: readonly BadArgumentCase[] = [
  { name: 'createEp with a PZ of another IA', scene: 'one', status: S.INVALID_HANDLE, argument: 'pz', call: (s) => s.ia.createEp(s.other.pz, s.side.ep.evds) },
  { name: 'createEp with a non-object PZ', scene: 'one', status: S.INVALID_HANDLE, argument: 'pz', call: (s) => s.ia.createEp(bad(42), s.side.ep.evds) },
  { name: 'createEp with a freed PZ', scene: 'one', status: S.INVALID_HANDLE, argument: 'pz', call: (s) => s.ia.createEp(freedPz(s), s.side.ep.evds) },
  { name: 'createEp with a freed recv EVD', scene: 'one', status: S.INVALID_HANDLE, argument: 'evds.recv', call: (s) => s.ia.createEp(s.side.pz, evdsWith(s, 'recv', freedEvd(s))) },
  { name: 'createEp with a request EVD of another IA', scene: 'one', status: S.INVALID_HANDLE, argument: 'evds.request', call: (s) => s.ia.createEp(s.side.pz, evdsWith(s, 'request', s.other.request)) },
  { name: 'createEp with a connect EVD that is not an EVD', scene: 'one', status: S.INVALID_HANDLE, argument: 'evds.connect', call: (s) => s.ia.createEp(s.side.pz, evdsWith(s, 'connect', bad({}))) },
  { name: 'createEp with evds not an object', scene: 'one', status: S.INVALID_PARAMETER, argument: 'evds', call: (s) => s.ia.createEp(s.side.pz, bad(null)) },
  { name: 'createEp with maxRecvDtos beyond the IA limit', scene: 'one', status: S.INVALID_PARAMETER, argument: 'attributes.maxRecvDtos', call: (s) => s.ia.createEp(s.side.pz, s.side.ep.evds, { maxRecvDtos: s.limits.maxRecvDtos + 1 }) },
  { name: 'createEp with maxRequestDtos 0', scene: 'one', status: S.INVALID_PARAMETER, argument: 'attributes.maxRequestDtos', call: (s) => s.ia.createEp(s.side.pz, s.side.ep.evds, { maxRequestDtos: 0 }) },
  { name: 'createEp with maxRequestIov beyond maxIov', scene: 'one', status: S.INVALID_PARAMETER, argument: 'attributes.maxRequestIov', call: (s) => s.ia.createEp(s.side.pz, s.side.ep.evds, { maxRequestIov: s.limits.maxIov + 1 }) },
  { name: 'createEp with a non-integer maxRecvIov', scene: 'one', status: S.INVALID_PARAMETER, argument: 'attributes.maxRecvIov', call: (s) => s.ia.createEp(s.side.pz, s.side.ep.evds, { maxRecvIov: 1.5 }) },
  { name: 'createEvd with an option it does not take (queueDeth)', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.queueDeth', call: (s) => s.ia.createEvd(bad({ queueDeth: 4 })) },
  { name: 'createEp with an attribute it does not take (maxRecvDto)', scene: 'one', status: S.INVALID_PARAMETER, argument: 'attributes.maxRecvDto', call: (s) => s.ia.createEp(s.side.pz, s.side.ep.evds, bad({ maxRecvDto: 4 })) },
  { name: 'evd.wait with an option it does not take (timeout)', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'options.timeout', call: (s) => s.side.recv.wait(bad({ timeout: 5 })) },
  { name: 'ep.connect with an option it does not take (timeoutMS)', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.timeoutMS', call: (s) => s.side.ep.connect(s.ia.address, s.limits.connQualRange[0], bad({ timeoutMS: 5 })) },
  { name: 'createEvd with queueDepth 0', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.queueDepth', call: (s) => s.ia.createEvd({ queueDepth: 0 }) },
  { name: 'createEvd with queueDepth beyond maxEvdQueueDepth', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.queueDepth', call: (s) => s.ia.createEvd({ queueDepth: s.limits.maxEvdQueueDepth + 1 }) },
  { name: 'createPspAny with an EVD of another IA', scene: 'one', async: true, status: S.INVALID_HANDLE, argument: 'evd', call: (s) => s.ia.createPspAny(s.other.connect) },
  { name: 'createPsp with a conn-qual below the range', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'connQual', call: (s) => s.ia.createPsp(s.limits.connQualRange[0] - 1, s.side.connect) },
  { name: 'createPsp with a NaN conn-qual', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'connQual', call: (s) => s.ia.createPsp(Number.NaN, s.side.connect) },
  { name: 'evd.wait with a negative timeout', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'timeoutMs', call: (s) => s.side.recv.wait({ timeoutMs: -1 }) },
  { name: 'evd.wait with null options', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'options', call: (s) => s.side.recv.wait(null as never) },
  { name: 'evd.wait with a signal that is not an AbortSignal', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'signal', call: (s) => s.side.recv.wait({ signal: { aborted: false } as never }) },
  { name: 'evd.setNotify with a non-function', scene: 'one', status: S.INVALID_PARAMETER, argument: 'fn', call: (s) => s.side.recv.setNotify(bad('notify me')) },
  { name: 'registerLmr with unknown access flags', scene: 'one', status: S.INVALID_PARAMETER, argument: 'access', call: (s) => s.side.pz.registerLmr(new Uint8Array(8), 0x100) },
  { name: 'registerLmr with a non-numeric access', scene: 'one', status: S.INVALID_PARAMETER, argument: 'access', call: (s) => s.side.pz.registerLmr(new Uint8Array(8), bad('rw')) },
  { name: 'registerLmr with memory that is not memory', scene: 'one', status: S.INVALID_PARAMETER, argument: 'memory', call: (s) => s.side.pz.registerLmr(bad<RegisterableMemory>('abc'), MemAccess.LOCAL) },
  { name: 'rmr.bind beyond the end of the LMR', scene: 'one', status: S.LENGTH_ERROR, argument: 'length', call: (s) => s.side.pz.createRmr().bind(s.mem.lmr, 32, 64, MemAccess.REMOTE_READ) },
  { name: 'rmr.bind at a negative offset', scene: 'one', status: S.LENGTH_ERROR, argument: 'offset', call: (s) => s.side.pz.createRmr().bind(s.mem.lmr, -1, 8, MemAccess.REMOTE_READ) },
  { name: 'rmr.bind with rights the LMR lacks', scene: 'one', status: S.PRIVILEGES_VIOLATION, argument: 'access', call: (s) => s.side.pz.createRmr().bind(s.side.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL), 0, 8, MemAccess.REMOTE_WRITE) },
  { name: 'rmr.bind with local rather than remote rights', scene: 'one', status: S.INVALID_PARAMETER, argument: 'access', call: (s) => s.side.pz.createRmr().bind(s.mem.lmr, 0, 8, MemAccess.LOCAL_READ) },
  { name: 'rmr.bind of an LMR of another PZ', scene: 'one', status: S.PROTECTION_VIOLATION, argument: 'lmr', call: (s) => s.ia.createPz().createRmr().bind(s.mem.lmr, 0, 8, MemAccess.REMOTE_READ) },
  { name: 'rmr.bind of something that is not an LMR', scene: 'one', status: S.INVALID_HANDLE, argument: 'lmr', call: (s) => s.side.pz.createRmr().bind(bad({ length: 8 }), 0, 8, MemAccess.REMOTE_READ) },
  { name: 'extension() with an unknown name', scene: 'one', status: S.INVALID_PARAMETER, argument: 'name', call: (s) => s.ia.extension(bad<ExtensionName>('teleport')) },
  { name: 'openIa with an unknown capability hint', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'options.capabilities', call: (s) => s.h.openIa({ capabilities: [bad<DtoCapability>('teleport')] }) },
  { name: 'openIa with capability hints that are not an array', scene: 'one', async: true, status: S.INVALID_PARAMETER, argument: 'options.capabilities', call: (s) => s.h.openIa(bad<IaOptions>({ capabilities: 'rdma-write' })) },
  { name: 'ep.free of a freed endpoint', scene: 'one', status: S.INVALID_HANDLE, argument: 'ep', call: (s) => (s.side.ep.free(), s.side.ep.free()) },
  { name: 'postRecv on a freed endpoint', scene: 'one', status: S.INVALID_HANDLE, argument: 'ep', call: (s) => (s.side.ep.free(), s.side.ep.postRecv([seg(s.mem.lmr, 0, 8)], 'r')) },
];
