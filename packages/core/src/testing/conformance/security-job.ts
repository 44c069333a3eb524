import { expect } from 'vitest';
import type { Harness } from './harness.js';
import { expectNoEvent } from './helpers.js';
import { connectPair, createSide, expectRoundTrip, listen } from './pair.js';

/** Connections are authenticated with the job's secret before the consumer sees anything. */
export function registerJobSecurityTests(h: Harness): void {
  h.test('a client of another job raises no connection request and its connect fails', ['fixture.openForeignIa'], async () => {
    const serverIa = await h.openIa();
    const foreignIa = await h.openForeignIa();
    const listener = await listen(serverIa);
    const intruder = createSide(foreignIa);
    intruder.ep.connect(serverIa.address, listener.psp.connQual, { privateData: new Uint8Array([6, 6, 6]), timeoutMs: Math.min(h.waitMs, 500) });
    await h.nextEvent(intruder.connect, 'connection-timed-out', 'connection-peer-rejected', 'connection-non-peer-rejected', 'connection-unreachable');
    await expectNoEvent(listener.evd, 100, 'a connection request from another job');
    expect(serverIa.counters().connections).toBe(0);
    // The server is unharmed: a client of its own job still gets in.
    const pair = await connectPair(h, { ias: [await h.openIa(), serverIa] });
    await expectRoundTrip(h, pair.client, pair.server);
  });
}
