import type { Duplex, Readable, Writable } from 'node:stream';

/** How a rank's process ended. */
export type RankExit =
  | { readonly kind: 'exited'; readonly code: number }
  | { readonly kind: 'signaled'; readonly signal: NodeJS.Signals }
  /** The process never ran (e.g. the OS refused to create it). */
  | { readonly kind: 'not-started'; readonly message: string };

/** What the `Job` needs of one rank's process; `spawnNodeRank` adapts a `ChildProcess`, tests pass fakes. */
export interface RankProcess {
  /** Only rank 0 gets one (the launcher's stdin is forwarded there). */
  readonly stdin: Writable | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The launcher's end of the rank's PMI socket. */
  readonly pmi: Duplex;
  /** Settles once, when the process is gone. Never rejects. */
  readonly exited: Promise<RankExit>;
  /** Send `signal` to the rank (and whatever it started); a rank already gone is ignored. */
  signal(signal: NodeJS.Signals): void;
}

/** What a launcher asks a spawner for: one rank's program, arguments, directory and environment. */
export interface RankSpawnRequest {
  readonly rank: number;
  /** Absolute path of the program (a `.mjs`/`.js` file run by node). */
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Give the rank a stdin pipe (rank 0); others get none. */
  readonly stdin: boolean;
}

export type SpawnRank = (request: RankSpawnRequest) => RankProcess;
