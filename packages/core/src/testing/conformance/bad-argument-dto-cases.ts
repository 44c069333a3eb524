import { MemAccess, type Iov, type RmrTriplet } from '../../dat/memory.js';
import { DatStatus } from '../../dat/status.js';
import { PAIR_MAX_REQUEST_DTOS, type BadArgumentCase, type Scene } from './bad-arguments.js';
import { createSide, seg } from './pair.js';

const S = DatStatus;

function bad<T>(value: unknown): T {
  return value as T;
}

function recv(s: Scene, iov: unknown): void {
  s.side.ep.postRecv(bad<Iov>(iov), 'bad');
}

function connect(s: Scene, address: unknown, connQual: number, options?: object): void {
  s.side.ep.connect(bad<string>(address), connQual, options);
}

function freedLmrIov(s: Scene): Iov {
  const lmr = s.side.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL);
  lmr.free();
  return [seg(lmr, 0, 8)];
}

function tooManySegments(s: Scene): Iov {
  return Array.from({ length: s.side.ep.attributes.maxRecvIov + 1 }, () => seg(s.mem.lmr, 0, 1));
}

function remoteWith(s: Scene, patch: Record<string, unknown>): RmrTriplet {
  return bad<RmrTriplet>({ ...s.remote, ...patch });
}

function fillRecvQueue(s: Scene): void {
  const ep = createSide(s.ia, { maxRecvDtos: 2 }, undefined, s.side.pz).ep;
  for (let i = 0; i <= 2; i++) ep.postRecv([seg(s.mem.lmr, 0, 8)], i);
}

function fillRequestQueue(s: Scene): void {
  // The other side posts no receive, so every send stays outstanding.
  for (let i = 0; i <= PAIR_MAX_REQUEST_DTOS; i++) s.side.ep.postSend([seg(s.mem.lmr, 0, 8)], i);
}

/** iovs, connection set-up, connection requests and every posting call. */
export const DTO_CASES: readonly BadArgumentCase[] = [
  { name: 'postRecv with an iov that is not an array', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov', call: (s) => recv(s, seg(s.mem.lmr, 0, 8)) },
  { name: 'postRecv with a null iov segment', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov[0]', call: (s) => recv(s, [null]) },
  { name: 'postRecv with an iov whose lmr is not an LMR', scene: 'one', status: S.INVALID_HANDLE, argument: 'iov[0].lmr', call: (s) => recv(s, [{ lmr: {}, offset: 0, length: 8 }]) },
  { name: 'postRecv with a freed LMR', scene: 'one', status: S.INVALID_HANDLE, argument: 'iov[0].lmr', call: (s) => recv(s, freedLmrIov(s)) },
  { name: 'postRecv with an LMR of another IA', scene: 'one', status: S.PROTECTION_VIOLATION, argument: 'iov[0].lmr', call: (s) => recv(s, [seg(s.other.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL), 0, 8)]) },
  { name: 'postRecv with a negative offset', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov[0].offset', call: (s) => recv(s, [seg(s.mem.lmr, -1, 8)]) },
  { name: 'postRecv with a non-integer offset', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov[0].offset', call: (s) => recv(s, [seg(s.mem.lmr, 1.5, 8)]) },
  { name: 'postRecv with a NaN length', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov[0].length', call: (s) => recv(s, [seg(s.mem.lmr, 0, Number.NaN)]) },
  { name: 'postRecv with a negative length', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov[0].length', call: (s) => recv(s, [seg(s.mem.lmr, 0, -8)]) },
  { name: 'postRecv with a string length', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov[0].length', call: (s) => recv(s, [{ lmr: s.mem.lmr, offset: 0, length: '8' }]) },
  { name: 'postRecv with a segment past the end of its LMR', scene: 'one', status: S.PROTECTION_VIOLATION, argument: 'iov[0]', call: (s) => recv(s, [seg(s.mem.lmr, 60, 8)]) },
  { name: 'postRecv whose second segment lies outside its LMR', scene: 'one', status: S.PROTECTION_VIOLATION, argument: 'iov[1]', call: (s) => recv(s, [seg(s.mem.lmr, 0, 8), seg(s.mem.lmr, 64, 1)]) },
  { name: 'postRecv with more segments than maxRecvIov', scene: 'one', status: S.INVALID_PARAMETER, argument: 'iov', call: (s) => recv(s, tooManySegments(s)) },
  { name: 'postRecv into an LMR without LOCAL_WRITE', scene: 'one', status: S.PRIVILEGES_VIOLATION, argument: 'iov[0].lmr', call: (s) => recv(s, [seg(s.side.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL_READ), 0, 8)]) },
  { name: 'postRecv into an LMR of another PZ', scene: 'one', status: S.PROTECTION_VIOLATION, argument: 'iov[0].lmr', call: (s) => recv(s, [seg(s.ia.createPz().registerLmr(new Uint8Array(8), MemAccess.LOCAL), 0, 8)]) },
  { name: 'postRecv beyond maxRecvDtos', scene: 'one', status: S.QUEUE_FULL, argument: 'ep', call: fillRecvQueue },
  { name: 'connect to an empty address', scene: 'one', status: S.INVALID_ADDRESS, argument: 'address', call: (s) => connect(s, '', s.listener.psp.connQual) },
  { name: 'connect to an address that is not a string', scene: 'one', status: S.INVALID_ADDRESS, argument: 'address', call: (s) => connect(s, 42, s.listener.psp.connQual) },
  { name: 'connect with a conn-qual above the range', scene: 'one', status: S.INVALID_PARAMETER, argument: 'connQual', call: (s) => connect(s, s.other.ia.address, s.limits.connQualRange[1] + 1) },
  { name: 'connect with a non-integer conn-qual', scene: 'one', status: S.INVALID_PARAMETER, argument: 'connQual', call: (s) => connect(s, s.other.ia.address, 1.5) },
  { name: 'connect with too much private data', scene: 'one', status: S.LENGTH_ERROR, argument: 'options.privateData', call: (s) => connect(s, s.other.ia.address, s.listener.psp.connQual, { privateData: new Uint8Array(s.limits.maxPrivateData + 1) }) },
  { name: 'connect with private data that is not bytes', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.privateData', call: (s) => connect(s, s.other.ia.address, s.listener.psp.connQual, { privateData: 'hello' }) },
  { name: 'connect with timeoutMs 0', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.timeoutMs', call: (s) => connect(s, s.other.ia.address, s.listener.psp.connQual, { timeoutMs: 0 }) },
  { name: 'connect with a negative timeoutMs', scene: 'one', status: S.INVALID_PARAMETER, argument: 'options.timeoutMs', call: (s) => connect(s, s.other.ia.address, s.listener.psp.connQual, { timeoutMs: -5 }) },
  { name: 'connect twice', scene: 'one', status: S.INVALID_STATE, argument: 'ep', call: (s) => (connect(s, s.other.ia.address, s.listener.psp.connQual), connect(s, s.other.ia.address, s.listener.psp.connQual)) },
  { name: 'postSend on an UNCONNECTED endpoint', scene: 'one', status: S.INVALID_STATE, argument: 'ep', call: (s) => s.side.ep.postSend([seg(s.mem.lmr, 0, 8)], 's') },
  { name: 'postRdmaWrite on an UNCONNECTED endpoint', scene: 'one', needs: ['rdma-write'], status: S.INVALID_STATE, argument: 'ep', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', { rmrContext: 1n, targetOffset: 0, length: 8 }) },
  { name: 'accept on an endpoint that is already connected', scene: 'pair', async: true, status: S.INVALID_STATE, argument: 'ep', call: async (s) => (await s.pendingRequest()).accept(s.other.ep) },
  { name: 'accept on an endpoint of another IA', scene: 'pair', async: true, status: S.INVALID_HANDLE, argument: 'ep', call: async (s) => (await s.pendingRequest()).accept(createSide(s.ia).ep) },
  { name: 'accept with too much private data', scene: 'pair', async: true, status: S.LENGTH_ERROR, argument: 'privateData', call: async (s) => (await s.pendingRequest()).accept(createSide(s.other.ia).ep, new Uint8Array(s.limits.maxPrivateData + 1)) },
  { name: 'reject with private data that is not bytes', scene: 'pair', async: true, status: S.INVALID_PARAMETER, argument: 'privateData', call: async (s) => (await s.pendingRequest()).reject(bad('no')) },
  { name: 'answering a connection request twice', scene: 'pair', async: true, status: S.INVALID_STATE, argument: 'cr', call: async (s) => { const cr = await s.pendingRequest(); cr.reject(); cr.accept(createSide(s.other.ia).ep); } },
  { name: 'postSend with an option it does not take (suppress)', scene: 'pair', status: S.INVALID_PARAMETER, argument: 'options.suppress', call: (s) => s.side.ep.postSend([seg(s.mem.lmr, 0, 8)], 's', { suppress: true } as never) },
  { name: 'postSend from an LMR without LOCAL_READ', scene: 'pair', status: S.PRIVILEGES_VIOLATION, argument: 'iov[0].lmr', call: (s) => s.side.ep.postSend([seg(s.side.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL_WRITE), 0, 8)], 's') },
  { name: 'postSend beyond maxRequestDtos', scene: 'pair', status: S.QUEUE_FULL, argument: 'ep', call: fillRequestQueue },
  { name: 'postSend with a non-boolean suppressCompletion', scene: 'pair', status: S.INVALID_PARAMETER, argument: 'options.suppressCompletion', call: (s) => s.side.ep.postSend([seg(s.mem.lmr, 0, 8)], 's', { suppressCompletion: bad('yes') }) },
  { name: 'postRdmaWrite with a non-boolean localCompletion', scene: 'pair', needs: ['rdma-write'], status: S.INVALID_PARAMETER, argument: 'options.localCompletion', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', s.remote, { localCompletion: bad(1) }) },
  { name: 'reset of a CONNECTED endpoint', scene: 'pair', status: S.INVALID_STATE, argument: 'ep', call: (s) => s.side.ep.reset() },
  { name: 'disconnect with options that are not an object', scene: 'pair', status: S.INVALID_PARAMETER, argument: 'options', call: (s) => s.side.ep.disconnect(bad('now')) },
  { name: 'disconnect with abrupt not a boolean', scene: 'pair', status: S.INVALID_PARAMETER, argument: 'options.abrupt', call: (s) => s.side.ep.disconnect({ abrupt: bad('yes') }) },
  { name: 'postRdmaWrite with an immediate of 2^32', scene: 'pair', needs: ['rdma-write-immediate'], status: S.INVALID_PARAMETER, argument: 'options.immediate', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', s.remote, { immediate: 2 ** 32 }) },
  { name: 'postRdmaWrite with a negative immediate', scene: 'pair', needs: ['rdma-write-immediate'], status: S.INVALID_PARAMETER, argument: 'options.immediate', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', s.remote, { immediate: -1 }) },
  { name: 'postRdmaWrite with options that are not an object', scene: 'pair', needs: ['rdma-write'], status: S.INVALID_PARAMETER, argument: 'options', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', s.remote, bad(7)) },
  { name: 'postRdmaWrite with a remote context that is not a bigint', scene: 'pair', needs: ['rdma-write'], status: S.INVALID_PARAMETER, argument: 'remote.rmrContext', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', remoteWith(s, { rmrContext: Number(s.remote.rmrContext & 0xffffn) })) },
  { name: 'postRdmaWrite with remote.length smaller than the iov', scene: 'pair', needs: ['rdma-write'], status: S.LENGTH_ERROR, argument: 'remote.length', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 16)], 'w', remoteWith(s, { length: 8 })) },
  { name: 'postRdmaWrite with a negative remote.targetOffset', scene: 'pair', needs: ['rdma-write'], status: S.INVALID_PARAMETER, argument: 'remote.targetOffset', call: (s) => s.side.ep.postRdmaWrite([seg(s.mem.lmr, 0, 8)], 'w', remoteWith(s, { targetOffset: -8 })) },
  { name: 'postRdmaRead with a remote that is not a triplet', scene: 'pair', needs: ['rdma-read'], status: S.INVALID_PARAMETER, argument: 'remote', call: (s) => s.side.ep.postRdmaRead([seg(s.mem.lmr, 0, 8)], 'r', bad(null)) },
  { name: 'postRdmaRead into an LMR without LOCAL_WRITE', scene: 'pair', needs: ['rdma-read'], status: S.PRIVILEGES_VIOLATION, argument: 'iov[0].lmr', call: (s) => s.side.ep.postRdmaRead([seg(s.side.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL_READ), 0, 8)], 'r', s.remote) },
  { name: 'postRdmaRead with more segments than maxRequestIov', scene: 'pair', needs: ['rdma-read'], status: S.INVALID_PARAMETER, argument: 'iov', call: (s) => s.side.ep.postRdmaRead(Array.from({ length: s.side.ep.attributes.maxRequestIov + 1 }, () => seg(s.mem.lmr, 0, 1)), 'r', s.remote) },
];
