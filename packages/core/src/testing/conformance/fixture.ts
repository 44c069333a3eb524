import type { InterfaceAdapter } from '../../dat/ia.js';
import type { DatProvider, IaOptions } from '../../dat/provider.js';

/**
 * What a provider hands to `describeProviderConformance`. Only `name`, `provider` and
 * `openIa` are required; tests that need an optional member skip themselves by name (or
 * fail, with `DAPL_CONFORMANCE_STRICT=1`).
 */
export interface ConformanceFixture {
  /** Used in describe() titles. */
  readonly name: string;
  readonly provider: DatProvider;
  /** A fresh IA of one job. */
  openIa(options?: IaOptions): Promise<InterfaceAdapter>;
  /** Two IAs of one job that can connect to each other. Default: `openIa` twice. */
  openPair?(options?: IaOptions): Promise<[InterfaceAdapter, InterfaceAdapter]>;
  /** Make `ia` vanish as a SIGKILLed process would: its peers see `connection-broken`. */
  crash?(ia: InterfaceAdapter): Promise<void>;
  /** An IA of ANOTHER job (a different job key). */
  openForeignIa?(): Promise<InterfaceAdapter>;
  /** Per-event wait budget in ms. Default 5000. */
  readonly waitMs?: number;
  /** Sends in the flow-control test. Default 10 000. */
  readonly floodCount?: number;
  /** Bound for the server IA's `peakBufferedBytes` in the flow-control test. Default 1 MiB. */
  readonly maxBufferedBytes?: number;
}

/** The fixture with every default filled in. */
export interface ResolvedFixture extends ConformanceFixture {
  readonly waitMs: number;
  readonly floodCount: number;
  readonly maxBufferedBytes: number;
  openPair(options?: IaOptions): Promise<[InterfaceAdapter, InterfaceAdapter]>;
}

export function resolveFixture(fixture: ConformanceFixture): ResolvedFixture {
  const openPair =
    fixture.openPair?.bind(fixture) ??
    (async (options?: IaOptions): Promise<[InterfaceAdapter, InterfaceAdapter]> => {
      const a = await fixture.openIa(options);
      try {
        return [a, await fixture.openIa(options)];
      } catch (error) {
        await a.close();
        throw error;
      }
    });
  return {
    ...fixture,
    openIa: fixture.openIa.bind(fixture),
    crash: fixture.crash?.bind(fixture),
    openForeignIa: fixture.openForeignIa?.bind(fixture),
    openPair,
    waitMs: fixture.waitMs ?? 5000,
    floodCount: fixture.floodCount ?? 10_000,
    maxBufferedBytes: fixture.maxBufferedBytes ?? 1024 * 1024,
  };
}
