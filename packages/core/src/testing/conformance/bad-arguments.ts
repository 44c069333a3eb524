import { MemAccess, type RmrTriplet } from '../../dat/memory.js';
import type { ConnectionRequest } from '../../dat/psp.js';
import type { DatStatus } from '../../dat/status.js';
import type { IaLimits, InterfaceAdapter } from '../../dat/ia.js';
import type { Harness, Need } from './harness.js';
import { expectDatError } from './helpers.js';
import { connectPair, createSide, listen, region, type Listener, type Region, type Side } from './pair.js';

/**
 * What a bad-argument case runs against. `side` is the endpoint under test (UNCONNECTED in a
 * `one` scene, CONNECTED to `other` in a `pair` scene); `other` is on a second IA of the job.
 */
export interface Scene {
  readonly h: Harness;
  readonly ia: InterfaceAdapter;
  readonly limits: IaLimits;
  readonly side: Side;
  readonly other: Side;
  /** 64 bytes in `side.pz`, registered with every right. */
  readonly mem: Region;
  /** A listener on the other IA. */
  readonly listener: Listener;
  /** A 64-byte window on `other`'s memory with remote read and write (pair scenes only). */
  readonly remote: RmrTriplet;
  /** A fresh connection request at `listener`, from a second endpoint of `ia`. */
  pendingRequest(): Promise<ConnectionRequest>;
}

export interface BadArgumentCase {
  readonly name: string;
  readonly scene: 'one' | 'pair';
  readonly needs?: readonly Need[];
  readonly status: DatStatus;
  /** What `err.argument` (or the message) must name. */
  readonly argument: string;
  /** Calls that return a promise (createPsp, openIa, or set-up before the bad call) say so. */
  readonly async?: boolean;
  readonly call: (s: Scene) => unknown;
}

/** In a pair scene, the connected client may have at most this many requests outstanding. */
export const PAIR_MAX_REQUEST_DTOS = 4;

async function buildScene(h: Harness, connected: boolean): Promise<Scene> {
  const [ia, otherIa] = await h.openPair();
  let side: Side;
  let other: Side;
  let listener: Listener;
  if (connected) {
    const pair = await connectPair(h, { ias: [ia, otherIa], clientAttributes: { maxRequestDtos: PAIR_MAX_REQUEST_DTOS } });
    ({ client: side, server: other, listener } = pair);
  } else {
    side = createSide(ia);
    other = createSide(otherIa);
    listener = await listen(otherIa);
  }
  const window = region(other.pz, 64);
  const remote = connected ? other.pz.createRmr().bind(window.lmr, 0, 64, MemAccess.REMOTE) : { rmrContext: 0n, targetOffset: 0, length: 0 };
  return {
    h,
    ia,
    limits: ia.query().limits,
    side,
    other,
    mem: region(side.pz, 64),
    listener,
    remote,
    async pendingRequest() {
      const caller = createSide(ia);
      caller.ep.connect(otherIa.address, listener.psp.connQual, { timeoutMs: h.waitMs });
      return (await h.nextEvent(listener.evd, 'connection-request')).request;
    },
  };
}

/** One `it` per case: the call fails with a DatError of the case's status that names its argument. */
export function registerBadArgumentTests(h: Harness, cases: readonly BadArgumentCase[]): void {
  for (const c of cases) {
    h.test(`${c.name} → ${c.status} naming ${c.argument}`, c.needs ?? [], async () => {
      const scene = await buildScene(h, c.scene === 'pair');
      if (c.async === true) {
        await expectDatError(() => c.call(scene), c.status, c.argument);
        return;
      }
      // Everything else must throw synchronously: outcomes are events, bad input is an exception.
      await expectDatError(() => {
        const returned: unknown = c.call(scene);
        if (returned instanceof Promise) {
          returned.catch(() => {});
          throw new Error(`${c.name}: returned a promise; bad input must throw synchronously`);
        }
      }, c.status, c.argument);
    });
  }
}
