import { MemAccess, type InterfaceAdapter, SimKernel, type DatEvent, type Endpoint, type EventDispatcher, type Lmr, type RmrTriplet, type Runtime, type SimClock, type SimRunResult } from '@dapl/core';
import { createCombufProvider } from '../src/index.js';

const WAIT_MS = 5_000;

/** One rank's end of a connected combuf pair under `kernel.run`. */
export interface SimSide {
  readonly rank: number;
  readonly clock: SimClock;
  readonly ep: Endpoint;
  readonly recv: EventDispatcher;
  readonly request: EventDispatcher;
  readonly connect: EventDispatcher;
  /** This rank's registered buffer (all access rights), and the peer's window on its own. */
  readonly buf: Uint8Array;
  readonly lmr: Lmr;
  readonly remote: RmrTriplet;
  readonly kernel: SimKernel;
  /** This rank's IA (its counters). */
  readonly ia: InterfaceAdapter;
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Next event of `evd`, failing after a wall-clock budget rather than hanging. */
export async function next(evd: EventDispatcher): Promise<DatEvent> {
  return evd.wait({ timeoutMs: WAIT_MS });
}

/**
 * Two ranks on a fresh kernel and combuf machine (rank r = node r), connected (rank 0 the client), each
 * with a registered buffer of `bufBytes` the other may read and write; then `body` runs on each.
 */
export async function runPair(
  parameters: Readonly<Record<string, unknown>>,
  bufBytes: number,
  body: (side: SimSide) => Promise<void>,
): Promise<SimRunResult> {
  const kernel = new SimKernel();
  const provider = createCombufProvider({ kernel, parameters });
  const server = deferred<{ address: string; connQual: number }>();
  const windows = [deferred<RmrTriplet>(), deferred<RmrTriplet>()];
  const main = (rank: number) => async (): Promise<void> => {
    const clock = kernel.clock(rank);
    const runtime = { rank, size: 2, clock } as unknown as Runtime;
    const ia = await provider.openIa({}, runtime);
    try {
      const pz = ia.createPz();
      const recv = ia.createEvd();
      const request = ia.createEvd();
      const connect = ia.createEvd();
      const ep = ia.createEp(pz, { recv, request, connect });
      if (rank === 1) {
        const crs = ia.createEvd();
        const psp = await ia.createPspAny(crs);
        server.resolve({ address: ia.address, connQual: psp.connQual });
        const cr = await next(crs);
        if (cr.type !== 'connection-request') throw new Error(`expected a connection request, got ${cr.type}`);
        cr.request.accept(ep);
      } else {
        const { address, connQual } = await server.promise;
        ep.connect(address, connQual, { timeoutMs: WAIT_MS });
      }
      const up = await next(connect);
      if (up.type !== 'connection-established') throw new Error(`rank ${rank}: expected connection-established, got ${up.type}`);
      const buf = new Uint8Array(bufBytes);
      const lmr = pz.registerLmr(buf, MemAccess.ALL);
      windows[rank].resolve(pz.createRmr().bind(lmr, 0, bufBytes, MemAccess.REMOTE));
      const remote = await windows[1 - rank].promise;
      await body({ rank, clock, ep, recv, request, connect, buf, lmr, remote, kernel, ia });
    } finally {
      await ia.close();
    }
  };
  return kernel.run([main(0), main(1)]);
}
