import type { Endpoint, EndpointEvds } from '../dat/endpoint.js';
import type { DatEvent } from '../dat/events.js';
import type { EventDispatcher } from '../dat/evd.js';
import type { InterfaceAdapter } from '../dat/ia.js';
import { MemAccess, type Lmr, type RmrTriplet } from '../dat/memory.js';
import type { DatProvider } from '../dat/provider.js';
import type { Runtime } from '../runtime/runtime.js';
import type { SimClock } from '../sim/sim-clock.js';
import { SimKernel } from '../sim/sim-kernel.js';
import type { SimRunResult } from '../sim/sim-run.js';

const WAIT_MS = 5_000;

/** One rank's end of a connected pair of a simulated provider under `kernel.run`. */
export interface SimPairSide extends EndpointEvds {
  readonly rank: number;
  readonly clock: SimClock;
  readonly kernel: SimKernel;
  /** This rank's IA (its counters, its extensions). */
  readonly ia: InterfaceAdapter;
  readonly ep: Endpoint;
  /** This rank's registered buffer (all access rights), and the peer's window on its own. */
  readonly buf: Uint8Array;
  readonly lmr: Lmr;
  readonly remote: RmrTriplet;
}

/** A simulated provider's factory (`createIbProvider`, …): a fabric on `kernel` with `parameters`. */
export type SimProviderFactory = (options: { kernel: SimKernel; parameters: Readonly<Record<string, unknown>> }) => DatProvider;

/** What each side of a simulated pair runs, given its connected endpoint and the peer's window. */
export type SimPairBody = (side: SimPairSide) => Promise<void>;

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Next event of `evd`, failing after a wall-clock budget rather than hanging. */
export async function nextEvent(evd: EventDispatcher): Promise<DatEvent> {
  return evd.wait({ timeoutMs: WAIT_MS });
}

/**
 * Two ranks on a fresh kernel and fabric of `createProvider` (rank r = node r), connected (rank 0
 * the client), each with a registered buffer of `bufBytes` the other may read and write; then
 * `body` runs on each. For a simulated provider's timing and protocol tests.
 */
export async function runSimPair(
  createProvider: SimProviderFactory,
  parameters: Readonly<Record<string, unknown>>,
  bufBytes: number,
  body: SimPairBody,
): Promise<SimRunResult> {
  const kernel = new SimKernel();
  const provider = createProvider({ kernel, parameters });
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
        const cr = await nextEvent(crs);
        if (cr.type !== 'connection-request') throw new Error(`expected a connection request, got ${cr.type}`);
        cr.request.accept(ep);
      } else {
        const { address, connQual } = await server.promise;
        ep.connect(address, connQual, { timeoutMs: WAIT_MS });
      }
      const up = await nextEvent(connect);
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

/** `runSimPair` bound to one provider, for that provider's test files. */
export function simPairRunner(createProvider: SimProviderFactory): (parameters: Readonly<Record<string, unknown>>, bufBytes: number, body: SimPairBody) => Promise<SimRunResult> {
  return (parameters, bufBytes, body) => runSimPair(createProvider, parameters, bufBytes, body);
}
