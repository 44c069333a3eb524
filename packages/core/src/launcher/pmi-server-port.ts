import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { WaitReport } from '../runtime/declared-waits.js';

/** The part of `PmiServerOptions` the launcher sets. */
export interface LauncherPmiServerOptions {
  readonly size: number;
  readonly onAbort: (rank: number, exitCode: number) => void;
  readonly onFinalize: (rank: number) => void;
  readonly onProtocolError: (rank: number | undefined, message: string) => void;
  readonly onDisconnect: (rank: number) => void;
  /** A rank's answer to `requestWaitReports()`; undefined: malformed. */
  readonly onWaits?: (rank: number, waits: WaitReport[] | undefined) => void;
  readonly logger?: Logger;
}

/** The part of `PmiServer` the launcher uses: serve each rank on its socket, then close. */
export interface LauncherPmiServer {
  attach(stream: Duplex, rank: number): void;
  /** Ask every rank still in the job what it waits for (optional: test fakes may lack it); the ranks asked. */
  requestWaitReports?(): number[];
  close(): Promise<void>;
}

export type CreatePmiServer = (options: LauncherPmiServerOptions) => LauncherPmiServer;
