// A simulated endpoint's connect timeout runs in virtual time, on its rank's clock: a host that takes
// longer than the timeout in wall time to simulate a set-up the model makes in microseconds (a job
// of 1,024 ranks) must not time it out, and a peer that never answers times out at the same virtual
// time on every run.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextEvent } from '@dapl/core/testing';
import { createIbProvider } from '../src/index.js';

describe('ib connect timeout', () => {
  it('a connect nobody answers (another job) times out after timeoutMs of virtual time', async () => {
    const provider = createIbProvider();
    const server = await provider.openIa({ jobKey: randomBytes(32) });
    const client = await provider.openIa({ jobKey: randomBytes(32) });
    const psp = await server.createPspAny(server.createEvd());
    const evds = { recv: client.createEvd(), request: client.createEvd(), connect: client.createEvd() };
    const ep = client.createEp(client.createPz(), evds);
    const startNs = provider.kernel.now;
    ep.connect(server.address, psp.connQual, { timeoutMs: 250 });
    const event = await nextEvent(evds.connect);
    expect(event.type).toBe('connection-timed-out');
    expect(provider.kernel.now - startNs).toBeGreaterThanOrEqual(250e6);
    await client.close();
    await server.close();
  });
});
