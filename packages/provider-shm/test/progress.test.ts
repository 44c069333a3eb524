// The progress engines of a thread poll in one chain of microtask turns: two IAs of one thread,
// both polling, keep each other's messages moving, and the chain gives the event loop its turn
// while they do, so timers fire in the middle of a sustained exchange. A target's acknowledgement
// rides on the reply it posts: a ping-pong sends almost no acknowledgement frames of its own, and
// sends that get no reply are still acknowledged. A producer that waits for room in a ring
// smaller than its messages gets it back as the consumer drains.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { DtoStatus, type InterfaceAdapter } from '@dapl/core';
import { connectSides, openSide } from './support/pair.js';

const opened: InterfaceAdapter[] = [];
afterEach(async () => {
  for (const ia of opened.splice(0)) await ia.close();
});

/** Two connected endpoints on two IAs of this thread, both polling (spin on) unless `parameters` say otherwise. */
async function pollingPair(parameters: Record<string, unknown> = { spin: 'on', spinUs: 1000 }, bytes = 4) {
  const jobKey = randomBytes(32);
  const sides = [await openSide(jobKey, parameters, opened, { bytes }), await openSide(jobKey, parameters, opened, { bytes })];
  await connectSides(sides[0], sides[1], 10_000);
  return sides;
}

describe('shm: the thread polling chain', () => {
  it('two polling IAs of one thread ping-pong in order, and a timer fires during the exchange', async () => {
    const sides = await pollingPair();
    const ROUND_TRIPS = 5000;
    let done = 0;
    let timerFiredAfter = -1;
    setTimeout(() => (timerFiredAfter = done), 1);
    const view = (s: (typeof sides)[number]) => new DataView(s.lmr.bytes.buffer, s.lmr.bytes.byteOffset, 4);
    const run = async (s: (typeof sides)[number], first: boolean) => {
      const seen: number[] = [];
      for (let i = 0; i < ROUND_TRIPS; i++) {
        s.ep.postRecv(s.iov, i);
        if (first) {
          view(s).setUint32(0, i);
          s.ep.postSend(s.iov, i, { suppressCompletion: true });
        }
        const event = await s.evds.recv.wait({ timeoutMs: 10_000 });
        if (event.type !== 'dto-completion') throw new Error(`expected a completion, got ${event.type}`);
        seen.push(view(s).getUint32(0));
        if (!first) s.ep.postSend(s.iov, i, { suppressCompletion: true });
        else done++;
      }
      return seen;
    };
    const [back, there] = await Promise.all([run(sides[0], true), run(sides[1], false)]);
    const expected = Array.from({ length: ROUND_TRIPS }, (_, i) => i);
    expect(there).toEqual(expected);
    expect(back).toEqual(expected);
    expect(timerFiredAfter).toBeGreaterThanOrEqual(0);
    expect(timerFiredAfter).toBeLessThan(ROUND_TRIPS);
    // Each side's 5000 replies carried the acknowledgements; a timer's turn may leave a few alone.
    const ackFrames = sides.map((s) => s.ia.counters().ackFrames ?? 0);
    expect(ackFrames[0] + ackFrames[1]).toBeLessThan(ROUND_TRIPS / 10);
  });

  it('sends that get no reply complete successfully, acknowledged by frames of their own', async () => {
    const [sender, receiver] = await pollingPair();
    const SENDS = 100;
    for (let i = 0; i < SENDS; i++) receiver.ep.postRecv(receiver.iov, i);
    for (let i = 0; i < SENDS; i++) sender.ep.postSend(sender.iov, i);
    for (let i = 0; i < SENDS; i++) {
      const event = await sender.evds.request.wait({ timeoutMs: 10_000 });
      expect(event).toMatchObject({ type: 'dto-completion', op: 'send', cookie: i, status: DtoStatus.SUCCESS });
    }
    expect(receiver.ia.counters().ackFrames).toBeGreaterThan(0);
  });

  it('with spin off, messages four times larger than the ring go through it in fragments and arrive whole', async () => {
    const MESSAGES = 32;
    const BYTES = 16 * 1024;
    const [sender, receiver] = await pollingPair({ spin: 'off', ringBytes: 4096, fragmentBytes: 1024 }, BYTES);
    const fill = (i: number) => sender.lmr.bytes.fill((i * 37 + 1) & 0xff);
    for (let i = 0; i < MESSAGES; i++) {
      receiver.ep.postRecv(receiver.iov, i);
      fill(i);
      sender.ep.postSend(sender.iov, i, { suppressCompletion: true });
      const event = await receiver.evds.recv.wait({ timeoutMs: 10_000 });
      expect(event).toMatchObject({ type: 'dto-completion', op: 'recv', cookie: i, status: DtoStatus.SUCCESS, transferredLength: BYTES });
      expect(receiver.lmr.bytes.every((b) => b === ((i * 37 + 1) & 0xff))).toBe(true);
    }
  });
});
