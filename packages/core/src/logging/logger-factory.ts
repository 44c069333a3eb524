import type { Logger } from 'pino';

/** Makes a child logger for a component (`provider-tcp:Endpoint`), with extra bindings (rank, provider). */
export type LoggerFactory = (component: string, bindings?: Readonly<Record<string, unknown>>) => Logger;

/** A `LoggerFactory` of child loggers of `root`, each named by its component (`pkg:Class`). */
export function createLoggerFactory(root: Logger): LoggerFactory {
  return (component, bindings = {}) => root.child({ ...bindings, component });
}
