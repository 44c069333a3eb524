/**
 * DI tokens of core: `export const X = Symbol('X')` paired with a type of the same name
 * (Theia's convention). `DaplConfig` and `ProviderRegistry` are classes and serve as their own
 * tokens (inversify takes a class as a service identifier), so one name is both class and token.
 */
import type { Logger } from 'pino';
import type { InterfaceAdapter as DatInterfaceAdapter } from '../dat/ia.js';
import type { DatProvider as DatProviderInterface } from '../dat/provider.js';
import type { Runtime as RuntimeInterface } from '../runtime/runtime.js';
import type { LoggerFactory as LoggerFactoryFunction } from '../logging/logger-factory.js';

export { DaplConfig } from '../config/dapl-config.js';
export { ProviderRegistry } from '../registry/provider-registry.js';

/** The process's pino root logger. */
export const RootLogger: unique symbol = Symbol('RootLogger');
export type RootLogger = Logger;

export const LoggerFactory: unique symbol = Symbol('LoggerFactory');
export type LoggerFactory = LoggerFactoryFunction;

/** The rank's runtime (singleton, PMI or simulator). */
export const Runtime: unique symbol = Symbol('Runtime');
export type Runtime = RuntimeInterface;

/** The provider selected by configuration (async: `getAsync`). */
export const DatProvider: unique symbol = Symbol('DatProvider');
export type DatProvider = DatProviderInterface;

/** The opened IA of the selected provider (async: `getAsync`); closed by `closeContainer`. */
export const InterfaceAdapter: unique symbol = Symbol('InterfaceAdapter');
export type InterfaceAdapter = DatInterfaceAdapter;
