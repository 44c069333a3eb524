export * from './root-logger.js';
export * from './logger-factory.js';
