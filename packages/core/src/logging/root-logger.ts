import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config/core-parameters.js';

/** The root logger's level and destination. */
export interface RootLoggerOptions {
  /** Default `warn`: quiet unless something is wrong. */
  readonly level?: LogLevel;
  /** Default: stderr (fd 2), written synchronously so nothing is lost when a rank exits. */
  readonly destination?: DestinationStream;
}

/** The one root logger of a process (the container binds it); stdout stays the program's. */
export function createRootLogger(options: RootLoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ fd: 2, sync: true });
  return pino({ level: options.level ?? 'warn', base: { pid: process.pid } }, destination);
}
