import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

/** The part of `PmiServerOptions` the launcher sets. */
export interface LauncherPmiServerOptions {
  readonly size: number;
  readonly onAbort: (rank: number, exitCode: number) => void;
  readonly onFinalize: (rank: number) => void;
  readonly onProtocolError: (rank: number | undefined, message: string) => void;
  readonly onDisconnect: (rank: number) => void;
  readonly logger?: Logger;
}

/** The part of `PmiServer` the launcher uses: serve each rank on its socket, then close. */
export interface LauncherPmiServer {
  attach(stream: Duplex, rank: number): void;
  close(): Promise<void>;
}

export type CreatePmiServer = (options: LauncherPmiServerOptions) => LauncherPmiServer;
