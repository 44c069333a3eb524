import { expect } from 'vitest';
import { EpState } from '../../dat/endpoint.js';
import { MemAccess, type RegisterableMemory } from '../../dat/memory.js';
import { DatStatus } from '../../dat/status.js';
import type { Harness } from './harness.js';
import { expectDatError, randomBytes } from './helpers.js';
import { createSide } from './pair.js';

/** One IA on its own: what it reports about itself, and the life cycle of every object. */
export function registerUnitTests(h: Harness): void {
  h.test('query() reports sane limits, capabilities, extensions and address', [], async () => {
    const ia = await h.openIa();
    const attrs = ia.query();
    const { limits } = attrs;
    for (const [name, value] of Object.entries(limits)) {
      if (name === 'connQualRange') continue;
      const min = name === 'maxInline' ? 0 : 1;
      expect(Number.isSafeInteger(value) && (value as number) >= min, `limits.${name} = ${String(value)}`).toBe(true);
    }
    const [lo, hi] = limits.connQualRange;
    expect(Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && lo >= 0 && lo <= hi, `connQualRange [${lo}, ${hi}]`).toBe(true);
    expect(limits.maxRdmaSize).toBeGreaterThan(0);
    const declared = h.fixture.provider.capabilities;
    for (const c of attrs.capabilities) expect(declared.dto, `IA capability ${c}`).toContain(c);
    for (const e of attrs.extensions) expect(declared.extensions, `IA extension ${e}`).toContain(e);
    expect(typeof attrs.address === 'string' && attrs.address.length > 0).toBe(true);
    expect(attrs.address).toBe(ia.address);
    expect(attrs.provider).toBe(h.fixture.provider.name);
    expect(ia.provider).toBe(h.fixture.provider);
    expect(ia.closed).toBe(false);
  });

  h.test('capability hints narrow query().capabilities to declared ∩ requested', [], async () => {
    const declared = h.fixture.provider.capabilities.dto;
    expect((await h.openIa({ capabilities: [] })).query().capabilities).toEqual([]);
    expect([...(await h.openIa({ capabilities: [...declared] })).query().capabilities].sort()).toEqual([...declared].sort());
    expect([...(await h.openIa()).query().capabilities].sort()).toEqual([...declared].sort());
  });

  h.test('counters() report buffered bytes, their peak, and connections', [], async () => {
    const c = (await h.openIa()).counters();
    for (const name of ['bufferedBytes', 'peakBufferedBytes', 'connections']) {
      expect(Number.isSafeInteger(c[name]) && c[name] >= 0, `${name} = ${String(c[name])}`).toBe(true);
    }
    expect(c.connections).toBe(0);
  });

  h.test('PZ: create, free, double free → INVALID_HANDLE, use after free → INVALID_HANDLE', [], async () => {
    const ia = await h.openIa();
    const pz = ia.createPz();
    expect(pz.ia).toBe(ia);
    expect(pz.freed).toBe(false);
    pz.free();
    expect(pz.freed).toBe(true);
    await expectDatError(() => pz.free(), DatStatus.INVALID_HANDLE, 'pz');
    await expectDatError(() => pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL), DatStatus.INVALID_HANDLE, 'pz');
    await expectDatError(() => pz.createRmr(), DatStatus.INVALID_HANDLE, 'pz');
  });

  h.test('PZ: free with a live LMR, RMR or endpoint → INVALID_STATE; frees once they are gone', [], async () => {
    const ia = await h.openIa();
    const pz = ia.createPz();
    const lmr = pz.registerLmr(new Uint8Array(16), MemAccess.ALL);
    await expectDatError(() => pz.free(), DatStatus.INVALID_STATE, 'pz');
    lmr.free();
    const rmr = pz.createRmr();
    await expectDatError(() => pz.free(), DatStatus.INVALID_STATE, 'pz');
    rmr.free();
    const side = createSide(ia, undefined, undefined, pz);
    await expectDatError(() => pz.free(), DatStatus.INVALID_STATE, 'pz');
    side.ep.free();
    pz.free();
    expect(pz.freed).toBe(true);
  });

  h.test('LMR: reports its memory, double free → INVALID_HANDLE, free while an RMR is bound → INVALID_STATE', [], async () => {
    const pz = (await h.openIa()).createPz();
    const memory = new Uint8Array(64);
    const lmr = pz.registerLmr(memory, MemAccess.ALL);
    expect(lmr.pz).toBe(pz);
    expect(lmr.length).toBe(64);
    expect(lmr.access).toBe(MemAccess.ALL);
    const rmr = pz.createRmr();
    rmr.bind(lmr, 0, 64, MemAccess.REMOTE_WRITE);
    await expectDatError(() => lmr.free(), DatStatus.INVALID_STATE, 'lmr');
    expect(lmr.freed).toBe(false);
    rmr.unbind();
    lmr.free();
    expect(lmr.freed).toBe(true);
    await expectDatError(() => lmr.free(), DatStatus.INVALID_HANDLE, 'lmr');
  });

  h.test('RMR: bind returns the triplet, rebind issues a fresh context, unbind and free', [], async () => {
    const pz = (await h.openIa()).createPz();
    const lmr = pz.registerLmr(new Uint8Array(256), MemAccess.ALL);
    const rmr = pz.createRmr();
    expect(rmr.triplet).toBeUndefined();
    const t = rmr.bind(lmr, 16, 64, MemAccess.REMOTE);
    expect(typeof t.rmrContext).toBe('bigint');
    expect({ targetOffset: t.targetOffset, length: t.length }).toEqual({ targetOffset: 16, length: 64 });
    expect(rmr.triplet).toEqual(t);
    const again = rmr.bind(lmr, 0, 8, MemAccess.REMOTE_READ);
    expect(again.rmrContext).not.toBe(t.rmrContext);
    rmr.unbind();
    expect(rmr.triplet).toBeUndefined();
    rmr.free();
    expect(rmr.freed).toBe(true);
    await expectDatError(() => rmr.free(), DatStatus.INVALID_HANDLE, 'rmr');
    await expectDatError(() => rmr.bind(lmr, 0, 8, MemAccess.REMOTE_READ), DatStatus.INVALID_HANDLE, 'rmr');
    lmr.free(); // the freed RMR released its binding
  });

  h.test('EVD: free, double free → INVALID_HANDLE, free while an endpoint or PSP uses it → INVALID_STATE', [], async () => {
    const ia = await h.openIa();
    const evd = ia.createEvd({ queueDepth: 8 });
    expect(evd.queueDepth).toBe(8);
    expect(evd.ia).toBe(ia);
    const side = createSide(ia);
    const pz = ia.createPz();
    const ep = ia.createEp(pz, { recv: evd, request: side.request, connect: side.connect });
    await expectDatError(() => evd.free(), DatStatus.INVALID_STATE, 'evd');
    ep.free();
    const psp = await ia.createPspAny(evd);
    await expectDatError(() => evd.free(), DatStatus.INVALID_STATE, 'evd');
    psp.free();
    expect(psp.freed).toBe(true);
    await expectDatError(() => psp.free(), DatStatus.INVALID_HANDLE, 'psp');
    evd.free();
    expect(evd.freed).toBe(true);
    await expectDatError(() => evd.free(), DatStatus.INVALID_HANDLE, 'evd');
    await expectDatError(() => evd.dequeue(), DatStatus.INVALID_HANDLE, 'evd');
  });

  h.test('EP: starts UNCONNECTED with attributes within the limits; double free → INVALID_HANDLE', [], async () => {
    const ia = await h.openIa();
    const limits = ia.query().limits;
    const side = createSide(ia);
    const { ep } = side;
    expect(ep.state).toBe(EpState.UNCONNECTED);
    expect(ep.ia).toBe(ia);
    expect(ep.pz).toBe(side.pz);
    expect(ep.evds.recv).toBe(side.recv);
    expect(ep.evds.request).toBe(side.request);
    expect(ep.evds.connect).toBe(side.connect);
    expect(ep.remoteAddress).toBeUndefined();
    const a = ep.attributes;
    expect(a.maxRecvDtos >= 1 && a.maxRecvDtos <= limits.maxRecvDtos).toBe(true);
    expect(a.maxRequestDtos >= 1 && a.maxRequestDtos <= limits.maxRequestDtos).toBe(true);
    expect(a.maxRecvIov >= 1 && a.maxRecvIov <= limits.maxIov).toBe(true);
    expect(a.maxRequestIov >= 1 && a.maxRequestIov <= limits.maxIov).toBe(true);
    const sized = createSide(ia, { maxRecvDtos: 3, maxRequestDtos: 5, maxRecvIov: 1, maxRequestIov: 2 });
    expect(sized.ep.attributes).toEqual({ maxRecvDtos: 3, maxRequestDtos: 5, maxRecvIov: 1, maxRequestIov: 2 });
    ep.free();
    expect(ep.state).toBe(EpState.FREED);
    await expectDatError(() => ep.free(), DatStatus.INVALID_HANDLE, 'ep');
    await expectDatError(() => ep.postRecv([], 'x'), DatStatus.INVALID_HANDLE, 'ep');
  });

  h.test('every object answers INVALID_HANDLE after the IA is closed; close is idempotent', [], async () => {
    const ia = await h.openIa();
    const side = createSide(ia);
    const lmr = side.pz.registerLmr(new Uint8Array(8), MemAccess.ALL);
    const rmr = side.pz.createRmr();
    await ia.close();
    expect(ia.closed).toBe(true);
    await ia.close();
    const calls: [string, () => unknown][] = [
      ['ia.query', () => ia.query()],
      ['ia.createPz', () => ia.createPz()],
      ['ia.createEvd', () => ia.createEvd()],
      ['ia.createPspAny', () => ia.createPspAny(side.connect)],
      ['ia.createEp', () => ia.createEp(side.pz, side.ep.evds)],
      ['pz.registerLmr', () => side.pz.registerLmr(new Uint8Array(8), MemAccess.LOCAL)],
      ['rmr.bind', () => rmr.bind(lmr, 0, 8, MemAccess.REMOTE_READ)],
      ['evd.dequeue', () => side.recv.dequeue()],
      ['evd.wait', () => side.recv.wait({ timeoutMs: 10 })],
      ['ep.postRecv', () => side.ep.postRecv([{ lmr, offset: 0, length: 8 }], 'late')],
      ['ep.connect', () => side.ep.connect(ia.address, 1)],
    ];
    for (const [name, call] of calls) {
      let status: unknown = 'no error';
      try {
        await call();
      } catch (e) {
        status = (e as { status?: unknown }).status;
      }
      expect(status, name).toBe(DatStatus.INVALID_HANDLE);
    }
  });

  h.test('createPsp on a conn-qual in use → CONN_QUAL_IN_USE; free makes it usable again', [], async () => {
    const ia = await h.openIa();
    const evd = ia.createEvd();
    const [lo, hi] = ia.query().limits.connQualRange;
    const psp = await ia.createPspAny(evd);
    expect(psp.connQual >= lo && psp.connQual <= hi, `psp.connQual ${psp.connQual}`).toBe(true);
    expect(psp.evd).toBe(evd);
    expect(psp.ia).toBe(ia);
    const other = await ia.createPspAny(evd);
    expect(other.connQual).not.toBe(psp.connQual);
    await expectDatError(() => ia.createPsp(psp.connQual, evd), DatStatus.CONN_QUAL_IN_USE, 'connQual');
    const connQual = psp.connQual;
    psp.free();
    const again = await ia.createPsp(connQual, evd);
    expect(again.connQual).toBe(connQual);
  });

  h.test('registerLmr sees the caller memory of every kind without copying', [], async () => {
    const pz = (await h.openIa()).createPz();
    const f64 = new Float64Array(8);
    const ab = new ArrayBuffer(48);
    const u8 = new Uint8Array(24);
    const sab = new SharedArrayBuffer(16);
    const pooled = Buffer.from('conformance'); // usually a slice of Node's pool: byteOffset != 0
    const kinds: [string, RegisterableMemory, Uint8Array][] = [
      ['Uint8Array', u8, u8],
      ['Float64Array slice', f64.subarray(2, 6), new Uint8Array(f64.buffer, 16, 32)],
      ['DataView', new DataView(ab, 8, 24), new Uint8Array(ab, 8, 24)],
      ['ArrayBuffer', ab, new Uint8Array(ab)],
      ['SharedArrayBuffer', sab, new Uint8Array(sab)],
      ['Buffer', pooled, new Uint8Array(pooled.buffer, pooled.byteOffset, pooled.byteLength)],
    ];
    for (const [name, memory, view] of kinds) {
      const lmr = pz.registerLmr(memory, MemAccess.ALL);
      expect(lmr.length, name).toBe(view.length);
      const pattern = randomBytes(view.length);
      lmr.bytes.set(pattern);
      expect(Array.from(view), `${name}: written through the LMR`).toEqual(Array.from(pattern));
      view[0] ^= 0xff;
      expect(lmr.bytes[0], `${name}: written by the caller`).toBe(view[0]);
      lmr.free();
    }
  });
}
