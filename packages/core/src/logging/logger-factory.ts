import type { Logger } from 'pino';

/** DI token of the {@link LoggerFactory} that names child loggers of the root logger by component (`pkg:Class`). */
export const LoggerFactory: unique symbol = Symbol('LoggerFactory');

/** Makes a child logger for a component (`provider-tcp:Endpoint`), with extra bindings (rank, provider). */
export type LoggerFactory = (component: string, bindings?: Readonly<Record<string, unknown>>) => Logger;

/** A `LoggerFactory` of child loggers of `root`, each named by its component (`pkg:Class`). */
export function createLoggerFactory(root: Logger): LoggerFactory {
  return (component, bindings = {}) => root.child({ ...bindings, component });
}
