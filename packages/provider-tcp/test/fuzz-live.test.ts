import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DtoStatus, MemAccess, type DatEvent, type Endpoint, type EventDispatcher, type InterfaceAdapter } from '@dapl/core';
import { seededRandom } from '@dapl/core/testing';
import { tcpProvider } from '../src/index.js';
import { encodeFrame, FrameFlag, FrameType, HEADER_SIZE } from '../src/wire/index.js';
import { RawClient } from './raw-client.js';

const jobKey = randomBytes(32);
const CONNECTIONS = 100;
const FRAMES_PER_CONNECTION = 100;

/** A plausible stream: requests with consecutive sequence numbers, some with bad contexts or offsets. */
function validStream(random: () => number, guessContext: bigint): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let seq = 1; seq <= FRAMES_PER_CONNECTION; seq++) {
    const kind = Math.floor(random() * 4);
    const payload = randomBytes(Math.floor(random() * 64));
    if (kind === 0) frames.push(encodeFrame({ type: FrameType.SEND, seq }, payload));
    else if (kind === 1) frames.push(encodeFrame({ type: FrameType.RDMA_WRITE, seq, rmrContext: guessContext, targetOffset: BigInt(Math.floor(random() * 100)) }, payload));
    else if (kind === 2) frames.push(encodeFrame({ type: FrameType.RDMA_WRITE_IMM, seq, aux: seq, rmrContext: BigInt(Math.floor(random() * 2 ** 32)) }, payload));
    else frames.push(encodeFrame({ type: FrameType.READ_REQ, seq, aux: Math.floor(random() * 64), rmrContext: guessContext }));
  }
  return frames;
}

/** Flip bits, truncate, rewrite a length, or replace a frame with noise. */
function mutate(frame: Uint8Array, random: () => number): Uint8Array {
  const out = Uint8Array.from(frame);
  switch (Math.floor(random() * 5)) {
    case 0:
      for (let i = 0; i < 3; i++) out[Math.floor(random() * out.length)] ^= 1 << Math.floor(random() * 8);
      return out;
    case 1:
      return out.subarray(0, Math.floor(random() * out.length));
    case 2:
      new DataView(out.buffer).setUint32(4, Math.floor(random() * 2 ** 32), true);
      return out;
    case 3:
      out[1] = FrameFlag.ACK_VALID;
      new DataView(out.buffer).setUint32(12, Math.floor(random() * 2 ** 32), true);
      return out;
    default:
      return randomBytes(HEADER_SIZE + Math.floor(random() * 32));
  }
}

describe('tcp: random and mutated frames on a live socket', () => {
  const opened: InterfaceAdapter[] = [];
  afterEach(async () => {
    for (const ia of opened.splice(0)) await ia.close();
  });

  it(`${CONNECTIONS * FRAMES_PER_CONNECTION} frames over ${CONNECTIONS} authenticated connections: only the offending connection breaks, memory stays untouched`, async () => {
    const server = await tcpProvider.openIa({ jobKey });
    opened.push(server);
    const crEvd = server.createEvd();
    const psp = await server.createPspAny(crEvd);
    const pz = server.createPz();
    // Exposed to nobody: whatever the fuzz sends, these bytes must not change.
    const secret = new Uint8Array(4096).fill(0x5a);
    const secretLmr = pz.registerLmr(secret, MemAccess.ALL);
    const guess = pz.createRmr().bind(secretLmr, 0, 4096, MemAccess.REMOTE_READ).rmrContext + 1n;
    const recvBuf = new Uint8Array(64 * 1024);
    const recvLmr = pz.registerLmr(recvBuf, MemAccess.LOCAL);

    // A bystander connection of the job that must keep working throughout.
    const client = await tcpProvider.openIa({ jobKey });
    opened.push(client);
    const cevd = client.createEvd();
    const cep = client.createEp(client.createPz(), { recv: cevd, request: cevd, connect: cevd });
    const sevd = server.createEvd();
    const bystander = server.createEp(pz, { recv: sevd, request: sevd, connect: sevd });
    cep.connect(server.address, psp.connQual);
    const first = (await crEvd.wait({ timeoutMs: 5000 })) as Extract<DatEvent, { type: 'connection-request' }>;
    first.request.accept(bystander);
    expect((await cevd.wait({ timeoutMs: 5000 })).type).toBe('connection-established');
    expect((await sevd.wait({ timeoutMs: 5000 })).type).toBe('connection-established');

    const random = seededRandom(20261122);
    const fuzzEvd: EventDispatcher = server.createEvd({ queueDepth: 1 << 16 });
    const endpoints: Endpoint[] = [];
    let framesSent = 0;
    for (let c = 0; c < CONNECTIONS; c++) {
      const raw = await RawClient.open(server.address, psp.connQual);
      await raw.handshake(jobKey, psp.connQual);
      const cr = (await crEvd.wait({ timeoutMs: 5000 })) as Extract<DatEvent, { type: 'connection-request' }>;
      const ep = server.createEp(pz, { recv: fuzzEvd, request: fuzzEvd, connect: fuzzEvd });
      for (let r = 0; r < 8; r++) ep.postRecv([{ lmr: recvLmr, offset: r * 4096, length: 4096 }], r);
      cr.request.accept(ep);
      endpoints.push(ep);
      await raw.read(HEADER_SIZE); // the ACCEPT header: the data path is open
      const frames = validStream(random, guess);
      const mutateFrom = Math.floor(random() * frames.length);
      for (let i = 0; i < frames.length; i++) {
        raw.write(i >= mutateFrom && random() < 0.5 ? mutate(frames[i], random) : frames[i]);
        framesSent++;
      }
      raw.destroy();
    }
    expect(framesSent).toBe(CONNECTIONS * FRAMES_PER_CONNECTION);

    // Every fuzzed endpoint ends: broken (a bad frame or the client vanishing), never a hang.
    const deadline = Date.now() + 10_000;
    while (endpoints.some((ep) => ep.state !== 'DISCONNECTED') && Date.now() < deadline) {
      await fuzzEvd.wait({ timeoutMs: 1000 }).catch(() => undefined);
    }
    expect(endpoints.filter((ep) => ep.state !== 'DISCONNECTED')).toEqual([]);
    expect([...secret].every((b) => b === 0x5a)).toBe(true);

    // The bystander still carries data both ways.
    const out = new TextEncoder().encode('still here');
    const cpz = cep.pz;
    const outLmr = cpz.registerLmr(out, MemAccess.LOCAL);
    bystander.postRecv([{ lmr: recvLmr, offset: 60_000, length: 100 }], 'r');
    cep.postSend([{ lmr: outLmr, offset: 0, length: out.length }], 's');
    const got = await sevd.wait({ timeoutMs: 5000 });
    expect(got).toMatchObject({ type: 'dto-completion', status: DtoStatus.SUCCESS, transferredLength: out.length });
    expect(new TextDecoder().decode(recvBuf.subarray(60_000, 60_000 + out.length))).toBe('still here');
  });

  it('pre-authentication garbage on 100 sockets raises no connection request; every socket is dropped', async () => {
    // Junk shorter than a header leaves the server waiting for the rest: the handshake timeout ends it.
    const server = await tcpProvider.openIa({ jobKey, parameters: { handshakeTimeoutMs: 300 } });
    opened.push(server);
    const crEvd = server.createEvd();
    const psp = await server.createPspAny(crEvd);
    const random = seededRandom(7);
    const sockets = await Promise.all(
      Array.from({ length: 100 }, async (_, c) => {
        const raw = await RawClient.open(server.address, psp.connQual);
        const junk = randomBytes(1 + Math.floor(random() * 2000));
        if (c % 2 === 0) junk[0] = FrameType.HELLO; // looks like a HELLO header, then nonsense
        raw.write(junk);
        return raw;
      }),
    );
    await Promise.all(sockets.map((raw) => raw.closed));
    const e = await crEvd.wait({ timeoutMs: 200 }).catch((err: { status?: string }) => err.status);
    expect(e).toBe('DAT_TIMEOUT_EXPIRED');
  });

  it('one bad frame on an open connection: that connection breaks at once, with an event naming the fault', async () => {
    const server = await tcpProvider.openIa({ jobKey });
    opened.push(server);
    const evd = server.createEvd();
    const psp = await server.createPspAny(evd);
    const raw = await RawClient.open(server.address, psp.connQual);
    await raw.handshake(jobKey, psp.connQual);
    const cr = (await evd.wait({ timeoutMs: 5000 })) as Extract<DatEvent, { type: 'connection-request' }>;
    const ep = server.createEp(server.createPz(), { recv: evd, request: evd, connect: evd });
    cr.request.accept(ep);
    expect((await evd.wait({ timeoutMs: 5000 })).type).toBe('connection-established');
    await raw.read(HEADER_SIZE);
    const bad = encodeFrame({ type: FrameType.SEND, seq: 1 }, new Uint8Array(4));
    bad[20] = 1; // the reserved field must be 0
    raw.write(bad);
    const broken = await evd.wait({ timeoutMs: 2000 });
    expect(broken.type).toBe('connection-broken');
    expect((broken as { reason?: string }).reason).toMatch(/protocol error/);
    await raw.closed; // the server hung up on the offender
    expect(server.counters().connections).toBe(0);
  });
});
