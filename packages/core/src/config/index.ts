export * from './parameter-value.js';
export * from './parameter-keys.js';
export * from './module-specifier.js';
export * from './core-parameters.js';
export * from './config-file.js';
export * from './job-key.js';
export * from './dat-conf.js';
export * from './dapl-config.js';
