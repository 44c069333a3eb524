// Lifetimes in the shared provider kit: EVD waits that time out leave nothing behind on their
// signal, a second IA close waits for the first, and a server endpoint reset to accept another
// request is never wired to the client it abandoned; remote access to memory that shrank or left.
import { describe, expect, it } from 'vitest';
import { DatStatus, EpState, MemAccess, type DatEvent, type EventDispatcher, type ProtectionZone } from '../src/index.js';
import { RmrTable } from '../src/provider-kit/rmr-table.js';
import { createLoopbackProvider } from '../src/testing/index.js';

const next = (evd: EventDispatcher): Promise<DatEvent> => evd.wait({ timeoutMs: 2_000 });

describe('provider kit lifetimes', () => {
  it('EVD waits that time out take their abort listener with them', async () => {
    const ia = await createLoopbackProvider().openIa();
    const evd = ia.createEvd();
    const controller = new AbortController();
    let listeners = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listeners--, remove(...args))) as typeof remove;
    for (let i = 0; i < 20; i++) await expect(evd.wait({ timeoutMs: 1, signal })).rejects.toMatchObject({ name: 'DatError' });
    expect(listeners).toBe(0);
    await ia.close();
  });

  it('a second close of an IA resolves only once the first is done', async () => {
    const ia = await createLoopbackProvider().openIa();
    let firstDone = false;
    const first = ia.close().then(() => (firstDone = true));
    await ia.close();
    expect(firstDone).toBe(true);
    await first;
  });

  it('an endpoint that accepted one request, was reset and accepted another, connects to the second client only', async () => {
    const provider = createLoopbackProvider();
    const server = await provider.openIa();
    const clients = [await provider.openIa(), await provider.openIa()];
    try {
      const listen = server.createEvd();
      const psp = await server.createPspAny(listen);
      const serverEvd = server.createEvd();
      const ep = server.createEp(server.createPz(), { recv: serverEvd, request: serverEvd, connect: serverEvd });
      const sides = clients.map((ia) => {
        const evd = ia.createEvd();
        const cep = ia.createEp(ia.createPz(), { recv: evd, request: evd, connect: evd });
        cep.connect(server.address, psp.connQual);
        return { evd, ep: cep };
      });
      const requests = [];
      for (let i = 0; i < 2; i++) {
        const cr = await next(listen);
        if (cr.type !== 'connection-request') throw new Error(`expected a connection request, got ${cr.type}`);
        requests.push(cr.request);
      }
      // In one turn: accept the first, abandon it, accept the second.
      requests[0].accept(ep);
      ep.disconnect();
      ep.reset();
      requests[1].accept(ep);
      const [first, second] = await Promise.all(sides.map((s) => next(s.evd)));
      expect(second.type).toBe('connection-established');
      expect(first.type).not.toBe('connection-established');
      expect(ep.state).toBe(EpState.CONNECTED);
      expect(ep.remoteAddress).toBe(clients[1].address);
    } finally {
      for (const ia of [server, ...clients]) await ia.close();
    }
  });
});

describe('the RMR table and memory that changed under a window', () => {
  it('refuses an access into a resizable buffer that shrank after the bind, or a transferred one', () => {
    const table = new RmrTable();
    const pz = {} as ProtectionZone;
    const shrinking = new ArrayBuffer(64, { maxByteLength: 128 });
    const leaving = new ArrayBuffer(64);
    const windows = [shrinking, leaving].map((buffer) => table.expose({ pz, bytes: new Uint8Array(buffer), base: 0, length: 64, access: MemAccess.REMOTE_WRITE }));
    expect(table.check(windows[0], pz, 16, 32, MemAccess.REMOTE_WRITE)).toMatchObject({ start: 16 });
    shrinking.resize(8);
    structuredClone(leaving, { transfer: [leaving] });
    expect(table.check(windows[0], pz, 16, 32, MemAccess.REMOTE_WRITE)).toBe(DatStatus.PROTECTION_VIOLATION);
    expect(table.check(windows[0], pz, 0, 8, MemAccess.REMOTE_WRITE)).toMatchObject({ start: 0 });
    expect(table.check(windows[1], pz, 0, 1, MemAccess.REMOTE_WRITE)).toBe(DatStatus.PROTECTION_VIOLATION);
  });
});
