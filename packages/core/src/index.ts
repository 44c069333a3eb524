/**
 * @packageDocumentation
 * `@dapl/core`: the DAT API (interfaces, events, statuses, `DatError`), the provider registry and
 * configuration, the runtime, and the composition root. Providers build on
 * `@dapl/core/provider-kit`; provider tests run `@dapl/core/testing`.
 *
 * @example
 * ```ts
 * import { DaplConfig, createContainer, InterfaceAdapter } from '@dapl/core';
 * const container = await createContainer(await DaplConfig.load());
 * const ia = await container.getAsync(InterfaceAdapter);
 * console.log(ia.query().limits);
 * ```
 */
export * from './dat/index.js';
export type { Clock } from './runtime/runtime.js';
export * from './config/index.js';
export * from './registry/index.js';
export * from './logging/index.js';
export * from './container/index.js';
export { RootLogger, LoggerFactory, Runtime, DatProvider, InterfaceAdapter } from './container/tokens.js';
export { SingletonRuntime, type SingletonRuntimeOptions } from './runtime/singleton-runtime.js';
export { WallClock } from './runtime/wall-clock.js';
export { runCli, COMMANDS, ExitCode, UsageError, type CliCommand, type CliIo, type CliOption, type ParsedArgs, type TextSink, type RunCliOptions } from './cli/index.js';
