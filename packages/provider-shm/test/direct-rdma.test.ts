// RDMA on windows over SharedArrayBuffers (pz.allocate) goes straight between the two sides'
// memory once the target's memory is announced: one copy, counted in `directBytes`. A forged or
// revoked context, an access outside the window or without the right still goes to the target,
// which refuses it: nothing is written.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DatStatus, DtoStatus, MemAccess, type DtoCompletionEvent, type EventDispatcher, type InterfaceAdapter, type RmrTriplet } from '@dapl/core';
import { shmProvider } from '../src/index.js';

const opened: InterfaceAdapter[] = [];
afterEach(async () => {
  for (const ia of opened.splice(0)) await ia.close();
});

async function side(jobKey: Uint8Array) {
  const ia = await shmProvider.openIa({ jobKey });
  opened.push(ia);
  const pz = ia.createPz();
  const evds = { recv: ia.createEvd(), request: ia.createEvd(), connect: ia.createEvd() };
  return { ia, pz, evds, ep: ia.createEp(pz, evds) };
}

async function completion(evd: EventDispatcher): Promise<DtoCompletionEvent> {
  const event = await evd.wait({ timeoutMs: 10_000 });
  if (event.type !== 'dto-completion') throw new Error(`expected a completion, got ${event.type}`);
  return event;
}

async function connectedPair() {
  const jobKey = randomBytes(32);
  const [initiator, target] = [await side(jobKey), await side(jobKey)];
  const listen = target.ia.createEvd();
  const psp = await target.ia.createPspAny(listen);
  initiator.ep.connect(target.ia.address, psp.connQual);
  const request = await listen.wait({ timeoutMs: 10_000 });
  if (request.type !== 'connection-request') throw new Error(request.type);
  request.request.accept(target.ep);
  await initiator.evds.connect.wait({ timeoutMs: 10_000 });
  await target.evds.connect.wait({ timeoutMs: 10_000 });
  return { initiator, target };
}

const direct = (ia: InterfaceAdapter): number => ia.counters().directBytes ?? 0;

describe('shm: direct RDMA on SharedArrayBuffer windows', () => {
  it('writes (with immediate) and reads go straight to the window; refused accesses change nothing', async () => {
    const { initiator, target } = await connectedPair();
    const memory = target.pz.allocate(4096);
    expect(memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    const lmr = target.pz.registerLmr(memory, MemAccess.ALL);
    const rmr = target.pz.createRmr();
    const window = rmr.bind(lmr, 1024, 2048, MemAccess.REMOTE);
    const source = initiator.pz.registerLmr(Uint8Array.from({ length: 512 }, (_, i) => (i * 7 + 3) & 0xff), MemAccess.LOCAL);
    const write = (remote: RmrTriplet, cookie: string, immediate?: number) =>
      initiator.ep.postRdmaWrite([{ lmr: source, offset: 0, length: 512 }], cookie, remote, immediate === undefined ? {} : { immediate });

    // The target's memory reaches the initiator over the control channel: until then, the rings.
    for (let i = 0; direct(initiator.ia) === 0 && i < 100; i++) {
      write(window, `warm-${i}`);
      expect((await completion(initiator.evds.request)).status).toBe(DtoStatus.SUCCESS);
      await sleep(10);
    }
    const before = direct(initiator.ia);
    expect(before).toBeGreaterThan(0);

    memory.fill(0);
    write({ ...window, targetOffset: 1536 }, 'imm', 77);
    expect(await completion(initiator.evds.request)).toMatchObject({ cookie: 'imm', status: DtoStatus.SUCCESS });
    expect(await completion(target.evds.recv)).toMatchObject({ op: 'recv-immediate', immediate: 77, transferredLength: 512 });
    expect(direct(initiator.ia)).toBe(before + 512);
    expect(memory.subarray(1536, 2048)).toEqual(source.bytes);
    expect(memory.subarray(0, 1536).every((b) => b === 0) && memory.subarray(2048).every((b) => b === 0)).toBe(true);

    const sink = initiator.pz.registerLmr(new Uint8Array(512), MemAccess.LOCAL);
    initiator.ep.postRdmaRead([{ lmr: sink, offset: 0, length: 512 }], 'read', { ...window, targetOffset: 1536 });
    expect(await completion(initiator.evds.request)).toMatchObject({ cookie: 'read', status: DtoStatus.SUCCESS });
    expect(sink.bytes).toEqual(source.bytes);
    expect(direct(initiator.ia)).toBe(before + 1024);

    // Outside the window (it ends at 3072), a forged context, a read-only binding, a revoked context.
    const readOnly = target.pz.createRmr().bind(lmr, 0, 4096, MemAccess.REMOTE_READ);
    memory.fill(0);
    const refused: [RmrTriplet, DatStatus][] = [
      [{ ...window, targetOffset: 2600 }, DatStatus.PROTECTION_VIOLATION],
      [{ ...window, rmrContext: window.rmrContext ^ 1n }, DatStatus.PROTECTION_VIOLATION],
      [readOnly, DatStatus.PRIVILEGES_VIOLATION],
    ];
    for (const [remote, reason] of refused) {
      write(remote, 'refused');
      expect(await completion(initiator.evds.request)).toMatchObject({ cookie: 'refused', status: DtoStatus.REMOTE_ACCESS, reason });
    }
    rmr.unbind();
    write(window, 'revoked');
    expect(await completion(initiator.evds.request)).toMatchObject({ cookie: 'revoked', status: DtoStatus.REMOTE_ACCESS, reason: DatStatus.PROTECTION_VIOLATION });
    expect(memory.every((b) => b === 0)).toBe(true);
    expect(direct(initiator.ia)).toBe(before + 1024);
  });

  it('a window over plain memory is reached through the rings only', async () => {
    const { initiator, target } = await connectedPair();
    const lmr = target.pz.registerLmr(new Uint8Array(1024), MemAccess.ALL);
    const window = target.pz.createRmr().bind(lmr, 0, 1024, MemAccess.REMOTE);
    const source = initiator.pz.registerLmr(new Uint8Array(256).fill(9), MemAccess.LOCAL);
    for (let i = 0; i < 5; i++) {
      initiator.ep.postRdmaWrite([{ lmr: source, offset: 0, length: 256 }], i, window);
      expect((await completion(initiator.evds.request)).status).toBe(DtoStatus.SUCCESS);
      await sleep(5);
    }
    expect(lmr.bytes.subarray(0, 256).every((b) => b === 9)).toBe(true);
    expect(direct(initiator.ia)).toBe(0);
  });
});
