import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DtoStatus, MemAccess, type DatEvent, type InterfaceAdapter } from '@dapl/core';
import { tcpProvider } from '../src/index.js';

const PEER = fileURLToPath(new URL('./fixtures/silent-peer.mjs', import.meta.url));
const FLOODING_PEER = fileURLToPath(new URL('./fixtures/flooding-peer.mjs', import.meta.url));

/** The child's first line, without closing its stdout (the child keeps running). */
function readLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += String(chunk);
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve(text.slice(0, nl));
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`peer exited with ${code} before printing a line`)));
  });
}

describe('tcp: a peer process killed with SIGKILL', () => {
  let child: ChildProcess | undefined;
  let ia: InterfaceAdapter | undefined;
  afterEach(async () => {
    child?.kill('SIGKILL');
    await ia?.close();
  });

  it('gives the survivor connection-broken within 2 s and flushes every pending DTO', async () => {
    const key = randomBytes(32).toString('hex');
    child = spawn(process.execPath, [PEER], { env: { ...process.env, DAPL_JOB_KEY: key }, stdio: ['ignore', 'pipe', 'inherit'] });
    const [host, port] = (await readLine(child)).split(' ');
    ia = await tcpProvider.openIa({ jobKey: Buffer.from(key, 'hex') });
    const evd = ia.createEvd();
    const pz = ia.createPz();
    const ep = ia.createEp(pz, { recv: evd, request: evd, connect: evd });
    const buf = new Uint8Array(1 << 20);
    const lmr = pz.registerLmr(buf, MemAccess.LOCAL);
    ep.postRecv([{ lmr, offset: 0, length: 1024 }], 'recv-0');
    ep.postRecv([{ lmr, offset: 1024, length: 1024 }], 'recv-1');
    ep.connect(host, Number(port));
    expect((await evd.wait({ timeoutMs: 5000 })).type).toBe('connection-established');
    // The peer never posts a receive: these sends stay outstanding.
    for (let i = 0; i < 8; i++) ep.postSend([{ lmr, offset: 0, length: 128 * 1024 }], `send-${i}`);
    await new Promise((r) => setTimeout(r, 100));
    expect(evd.size).toBe(0);

    const killedAt = performance.now();
    child.kill('SIGKILL');
    const events: DatEvent[] = [];
    while (events.length < 11) events.push(await evd.wait({ timeoutMs: 2000 }));
    const elapsed = performance.now() - killedAt;
    expect(elapsed).toBeLessThan(2000);
    const broken = events.find((e) => e.type === 'connection-broken');
    expect(broken).toBeDefined();
    const flushed = events.filter((e) => e.type === 'dto-completion');
    expect(flushed.map((e) => (e as { cookie: unknown }).cookie)).toEqual([
      ...Array.from({ length: 8 }, (_, i) => `send-${i}`),
      'recv-0',
      'recv-1',
    ]);
    for (const e of flushed) expect((e as { status: DtoStatus }).status).toBe(DtoStatus.FLUSHED);
    await once(child, 'exit');
  });

  it('is seen while the survivor holds the peer\'s unreceived SENDs and reads no more (probe writes)', async () => {
    const key = randomBytes(32).toString('hex');
    child = spawn(process.execPath, [FLOODING_PEER], { env: { ...process.env, DAPL_JOB_KEY: key }, stdio: ['ignore', 'pipe', 'inherit'] });
    const [host, port] = (await readLine(child)).split(' ');
    ia = await tcpProvider.openIa({ jobKey: Buffer.from(key, 'hex'), parameters: { keepAliveMs: 1000 } });
    const evd = ia.createEvd();
    const pz = ia.createPz();
    const ep = ia.createEp(pz, { recv: evd, request: evd, connect: evd });
    const lmr = pz.registerLmr(new Uint8Array(1024), MemAccess.LOCAL);
    ep.connect(host, Number(port));
    expect((await evd.wait({ timeoutMs: 5000 })).type).toBe('connection-established');
    // No receive posted: the peer's 1 MiB of SENDs stalls here, and the input pauses once 64 KiB
    // are held. Our own send waits for an acknowledgement the peer, stalled too, never gives.
    ep.postSend([{ lmr, offset: 0, length: 1024 }], 'ours');
    await new Promise((r) => setTimeout(r, 300));
    expect(evd.size).toBe(0);

    child.kill('SIGKILL');
    await once(child, 'exit');
    const events: DatEvent[] = [];
    while (events.length < 2) events.push(await evd.wait({ timeoutMs: 5000 }));
    expect(events.map((e) => e.type).sort()).toEqual(['connection-broken', 'dto-completion']);
    const flushed = events.find((e) => e.type === 'dto-completion') as { cookie: unknown; status: DtoStatus };
    expect(flushed.cookie).toBe('ours');
    expect(flushed.status).toBe(DtoStatus.FLUSHED);
  });
});
