export * from './builtin-providers.js';
export * from './import-module.js';
export * from './provider-check.js';
export * from './provider-registry.js';
export * from './create-provider-registry.js';
export * from './configuration-warnings.js';
