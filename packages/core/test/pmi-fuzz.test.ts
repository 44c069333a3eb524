import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isDatError } from '../src/dat/errors.js';
import { PmiRuntime } from '../src/runtime/pmi/pmi-runtime.js';
import { PmiServer } from '../src/runtime/pmi/pmi-server.js';
import { seededRandom } from '../src/testing/seeded-random.js';
import { randomPmiLine } from './fixtures/pmi/random-lines.js';
import { LineCollector, memoryPair } from './fixtures/pmi/stream-pair.js';

const HANDSHAKE: Readonly<Record<string, string>> = {
  init: 'cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n',
  get_maxes: 'cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n',
  get_appnum: 'cmd=appnum appnum=0\n',
  get_my_kvsname: 'cmd=my_kvsname kvsname=kvs_fuzz\n',
};

/** Answers the handshake, then answers the first `get` with `reply` (raw bytes) and hangs up. */
function fuzzServer(stream: Duplex, reply: Uint8Array): void {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      const cmd = /^cmd=(\S*)/.exec(text.slice(0, nl))?.[1] ?? '';
      text = text.slice(nl + 1);
      if (HANDSHAKE[cmd] !== undefined) stream.write(HANDSHAKE[cmd]);
      else {
        stream.write(reply);
        stream.end();
      }
    }
  });
}

/** Usually unchanged; sometimes truncated or with one byte replaced. */
function mangle(rand: () => number, bytes: Uint8Array): Uint8Array {
  const r = rand();
  if (r < 0.5) return bytes;
  if (r < 0.75) return bytes.subarray(0, Math.floor(rand() * bytes.length));
  const copy = Uint8Array.from(bytes);
  copy[Math.floor(rand() * copy.length)] = Math.floor(rand() * 256);
  return copy;
}

function withinMs<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

describe('PMI fuzz: 10,000 random and truncated lines', () => {
  it('as replies to the client: each get resolves or rejects with a DatError, never throws or hangs', async () => {
    const seed = 4242;
    const rand = seededRandom(seed);
    const outcomes = { value: 0, error: 0 };
    for (let batch = 0; batch < 40; batch++) {
      await Promise.all(
        Array.from({ length: 250 }, async (_, i) => {
          const index = batch * 250 + i;
          const [client, serverEnd] = memoryPair();
          // One reply in five starts as a valid get_result, so that both outcomes are exercised.
          const reply = rand() < 0.2 ? mangle(rand, Buffer.from(`cmd=get_result rc=0 msg=success value=v${index}\n`)) : randomPmiLine(rand);
          fuzzServer(serverEnd, reply);
          const runtime = await PmiRuntime.overStream(client, { rank: 0, size: 1 });
          const outcome = await withinMs(
            runtime.get('k').then(
              (value) => ({ value }),
              (error: unknown) => ({ error }),
            ),
            2000,
            `seed ${seed} line ${index}`,
          );
          if ('error' in outcome) {
            expect(isDatError(outcome.error), `seed ${seed} line ${index}: ${String(outcome.error)}`).toBe(true);
            outcomes.error++;
          } else {
            expect(typeof outcome.value).toBe('string');
            outcomes.value++;
          }
        }),
      );
    }
    expect(outcomes.value + outcomes.error).toBe(10_000);
    // The generator makes some valid get_result lines: both outcomes occur.
    expect(outcomes.value).toBeGreaterThan(0);
    expect(outcomes.error).toBeGreaterThan(5000);
  });

  it('to the server: every rank ends with a reported outcome; an offending rank is closed', async () => {
    const seed = 9001;
    const rand = seededRandom(seed);
    const counts = { protocolError: 0, disconnect: 0, finalize: 0, abort: 0 };
    for (let batch = 0; batch < 40; batch++) {
      await Promise.all(
        Array.from({ length: 250 }, async (_, i) => {
          const index = batch * 250 + i;
          const [client, serverEnd] = memoryPair();
          const replies = new LineCollector(client);
          let protocolError = false;
          const settled = new Promise<keyof typeof counts>((resolve) => {
            const server = new PmiServer({
              size: 1,
              onProtocolError: () => {
                protocolError = true;
                resolve('protocolError');
              },
              onDisconnect: () => resolve('disconnect'),
              onFinalize: () => resolve('finalize'),
              onAbort: () => resolve('abort'),
            });
            server.attach(serverEnd, 0);
          });
          client.write(randomPmiLine(rand));
          client.end();
          const outcome = await withinMs(settled, 2000, `seed ${seed} line ${index}`);
          counts[outcome]++;
          if (protocolError) await withinMs(replies.waitFor(Number.MAX_SAFE_INTEGER), 2000, `close after protocol error, line ${index}`);
          if (protocolError) expect(replies.closed, `seed ${seed} line ${index}`).toBe(true);
        }),
      );
    }
    expect(counts.protocolError + counts.disconnect + counts.finalize + counts.abort).toBe(10_000);
    expect(counts.protocolError).toBeGreaterThan(5000);
    expect(counts.disconnect).toBeGreaterThan(0);
  });

  it('garbage from one rank closes that rank only; its neighbour keeps working', async () => {
    const seed = 77;
    const rand = seededRandom(seed);
    for (let round = 0; round < 50; round++) {
      // Rank 1 ends with a protocol error (closed) or, if the garbage happened to say so, an abort.
      const errors: (number | undefined)[] = [];
      const server = new PmiServer({ size: 2, onProtocolError: (rank) => errors.push(rank), onDisconnect: (rank) => errors.push(rank), onAbort: (rank) => errors.push(rank) });
      const [c0, s0] = memoryPair();
      const [c1, s1] = memoryPair();
      server.attach(s0, 0);
      server.attach(s1, 1);
      const healthy = await PmiRuntime.overStream(c0, { rank: 0, size: 2 });
      const replies = new LineCollector(c1);
      while (!replies.closed && errors.length === 0) {
        c1.write(randomPmiLine(rand));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await healthy.put('alive', String(round));
      expect(await healthy.get('alive')).toBe(String(round));
      expect(errors).toEqual([1]);
      await server.close();
    }
  });
});
