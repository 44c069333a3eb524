import { randomFillSync } from 'node:crypto';
import { expect } from 'vitest';
import { MemAccess, type RmrTriplet } from '../../dat/memory.js';
import { DatStatus, DtoStatus } from '../../dat/status.js';
import type { Harness, Need } from './harness.js';
import { expectSameBytes } from './helpers.js';
import { connectPair, region, seg, type Pair, type Region } from './pair.js';

/**
 * A connected pair whose server exposes parts of a 4 KiB buffer through three bindings:
 * `[1024, 2048)` read-write, `[0, 512)` write-only, `[512, 1024)` read-only. Bytes outside
 * the windows are in the same LMR, so a provider that checks the LMR instead of the window fails.
 */
interface Arena extends Pair {
  readonly target: Region;
  readonly local: Region;
  readonly readWrite: RmrTriplet;
  readonly writeOnly: RmrTriplet;
  readonly readOnly: RmrTriplet;
}

async function arena(h: Harness): Promise<Arena> {
  const pair = await connectPair(h);
  const target = region(pair.server.pz, 4096);
  const bind = (offset: number, length: number, access: number) => pair.server.pz.createRmr().bind(target.lmr, offset, length, access);
  return {
    ...pair,
    target,
    local: region(pair.client.pz, 4096, MemAccess.LOCAL),
    readWrite: bind(1024, 1024, MemAccess.REMOTE),
    writeOnly: bind(0, 512, MemAccess.REMOTE_WRITE),
    readOnly: bind(512, 512, MemAccess.REMOTE_READ),
  };
}

type Access = 'write' | 'read' | 'write-immediate';

function remote(context: bigint, targetOffset: number, length: number): RmrTriplet {
  return { rmrContext: context, targetOffset, length };
}

/**
 * Post one access the target must refuse; check the refusal, that no target byte (and, for
 * a read, no local byte) changed, that the target saw no event, and that the connection
 * still carries a good access afterwards.
 */
async function expectRefused(h: Harness, a: Arena, access: Access, to: RmrTriplet, reason: DatStatus, length = 16): Promise<void> {
  const targetBefore = a.target.bytes.slice();
  const localBefore = a.local.bytes.slice();
  const iov = [seg(a.local.lmr, 0, length)];
  if (access === 'read') a.client.ep.postRdmaRead(iov, 'refused', to);
  else a.client.ep.postRdmaWrite(iov, 'refused', to, access === 'write-immediate' ? { immediate: 99 } : {});
  await h.nextCompletion(a.client.request, { cookie: 'refused', status: DtoStatus.REMOTE_ACCESS, reason });
  expectSameBytes(a.target.bytes, targetBefore, 'target buffer after a refused access');
  expectSameBytes(a.local.bytes, localBefore, 'local buffer after a refused access');
  expect(a.server.recv.size, 'a refused access raises nothing at the target').toBe(0);
  await expectStillWorks(h, a);
}

async function expectStillWorks(h: Harness, a: Arena): Promise<void> {
  const iov = [seg(a.local.lmr, 100, 16)];
  if (h.declares('rdma-write')) {
    a.client.ep.postRdmaWrite(iov, 'good', remote(a.readWrite.rmrContext, 1500, 16));
    await h.nextCompletion(a.client.request, { cookie: 'good', status: DtoStatus.SUCCESS, transferredLength: 16 });
    expectSameBytes(a.target.bytes.subarray(1500, 1516), a.local.bytes.subarray(100, 116), 'a good write after the refusal');
  } else {
    a.client.ep.postRdmaRead(iov, 'good', remote(a.readWrite.rmrContext, 1500, 16));
    await h.nextCompletion(a.client.request, { cookie: 'good', status: DtoStatus.SUCCESS, transferredLength: 16 });
    expectSameBytes(a.local.bytes.subarray(100, 116), a.target.bytes.subarray(1500, 1516), 'a good read after the refusal');
  }
}

function guessedContext(): bigint {
  const word = new BigUint64Array(1);
  randomFillSync(word);
  return word[0];
}

const NEEDS: Record<Access, Need> = { write: 'rdma-write', read: 'rdma-read', 'write-immediate': 'rdma-write-immediate' };
const P = DatStatus.PROTECTION_VIOLATION;

/** Every remote access is checked by the target for context, zone, bounds and rights. */
export function registerSecurityTests(h: Harness): void {
  for (const access of ['write', 'read', 'write-immediate'] as const) {
    h.test(`20 guessed contexts (${access}) → REMOTE_ACCESS / PROTECTION_VIOLATION`, [NEEDS[access]], async () => {
      const a = await arena(h);
      const known = new Set([a.readWrite, a.writeOnly, a.readOnly].map((t) => t.rmrContext));
      for (let i = 0; i < 20; i++) {
        let guess = guessedContext();
        while (known.has(guess)) guess = guessedContext();
        await expectRefused(h, a, access, remote(guess, 1024, 16), P);
      }
    });
  }

  const bounds: [string, Access, (a: Arena) => RmrTriplet, number?][] = [
    ['an offset past the window, inside the LMR (write)', 'write', (a) => remote(a.readWrite.rmrContext, 2100, 16)],
    ['an offset before the window, inside the LMR (read)', 'read', (a) => remote(a.readWrite.rmrContext, 100, 16)],
    ['an access straddling the window start (read)', 'read', (a) => remote(a.readWrite.rmrContext, 1016, 16)],
    ['offset + length past the window end (write)', 'write', (a) => remote(a.readWrite.rmrContext, 2040, 16)],
    ['offset + length past the window end (read)', 'read', (a) => remote(a.readWrite.rmrContext, 2047, 2), 2],
    ['targetOffset 2^53 - 1 with a small length (write)', 'write', (a) => remote(a.readWrite.rmrContext, Number.MAX_SAFE_INTEGER, 16)],
    ['targetOffset 2^53 - 1 with a small length (read)', 'read', (a) => remote(a.readWrite.rmrContext, Number.MAX_SAFE_INTEGER, 16)],
    ['targetOffset 2^53 - 1 and a huge remote length (write)', 'write', (a) => remote(a.readWrite.rmrContext, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)],
    ['a targetOffset that wraps to the window in 32 bits (write)', 'write', (a) => remote(a.readWrite.rmrContext, 2 ** 32 + 1100, 16)],
    ['a targetOffset that wraps to the window in 32 bits (read)', 'read', (a) => remote(a.readWrite.rmrContext, 2 ** 32 + 1100, 16)],
  ];
  for (const [name, access, to, length] of bounds) {
    h.test(`${name} → PROTECTION_VIOLATION`, [NEEDS[access]], async () => {
      const a = await arena(h);
      await expectRefused(h, a, access, to(a), P, length);
    });
  }

  h.test('a read through a write-only binding → PRIVILEGES_VIOLATION', ['rdma-read'], async () => {
    const a = await arena(h);
    await expectRefused(h, a, 'read', remote(a.writeOnly.rmrContext, 0, 16), DatStatus.PRIVILEGES_VIOLATION);
  });

  h.test('a write through a read-only binding → PRIVILEGES_VIOLATION', ['rdma-write'], async () => {
    const a = await arena(h);
    await expectRefused(h, a, 'write', remote(a.readOnly.rmrContext, 600, 16), DatStatus.PRIVILEGES_VIOLATION);
  });

  h.test('a write with immediate through a read-only binding rings no doorbell', ['rdma-write-immediate'], async () => {
    const a = await arena(h);
    await expectRefused(h, a, 'write-immediate', remote(a.readOnly.rmrContext, 600, 16), DatStatus.PRIVILEGES_VIOLATION);
  });

  h.test('a context revoked by unbind() → PROTECTION_VIOLATION', ['rdma-write'], async () => {
    const a = await arena(h);
    const rmr = a.server.pz.createRmr();
    const old = rmr.bind(a.target.lmr, 2048, 512, MemAccess.REMOTE);
    rmr.unbind();
    await expectRefused(h, a, 'write', remote(old.rmrContext, 2048, 16), P);
  });

  h.test('a context revoked by a rebind → PROTECTION_VIOLATION; the new context works', ['rdma-write'], async () => {
    const a = await arena(h);
    const rmr = a.server.pz.createRmr();
    const old = rmr.bind(a.target.lmr, 2048, 512, MemAccess.REMOTE);
    const fresh = rmr.bind(a.target.lmr, 2048, 512, MemAccess.REMOTE);
    await expectRefused(h, a, 'write', remote(old.rmrContext, 2048, 16), P);
    a.client.ep.postRdmaWrite([seg(a.local.lmr, 0, 16)], 'fresh', remote(fresh.rmrContext, 2048, 16));
    await h.nextCompletion(a.client.request, { cookie: 'fresh', status: DtoStatus.SUCCESS });
    expectSameBytes(a.target.bytes.subarray(2048, 2064), a.local.bytes.subarray(0, 16), 'write through the new context');
  });

  h.test('the context of a freed RMR → PROTECTION_VIOLATION', ['rdma-read'], async () => {
    const a = await arena(h);
    const rmr = a.server.pz.createRmr();
    const old = rmr.bind(a.target.lmr, 3000, 64, MemAccess.REMOTE);
    rmr.free();
    await expectRefused(h, a, 'read', remote(old.rmrContext, 3000, 16), P);
  });

  h.test('a context of another PZ than the target endpoint’s → PROTECTION_VIOLATION', ['rdma-write'], async () => {
    const a = await arena(h);
    const otherPz = a.server.ia.createPz();
    const elsewhere = region(otherPz, 256);
    const before = elsewhere.bytes.slice();
    const t = otherPz.createRmr().bind(elsewhere.lmr, 0, 256, MemAccess.REMOTE);
    await expectRefused(h, a, 'write', remote(t.rmrContext, 0, 16), P);
    expectSameBytes(elsewhere.bytes, before, 'memory of the other PZ');
  });

  h.test('a context bound at the initiator’s own IA means nothing at the target → PROTECTION_VIOLATION', ['rdma-read'], async () => {
    const a = await arena(h);
    const mine = region(a.client.pz, 256);
    const t = a.client.pz.createRmr().bind(mine.lmr, 0, 256, MemAccess.REMOTE);
    await expectRefused(h, a, 'read', remote(t.rmrContext, 0, 16), P);
  });
}
