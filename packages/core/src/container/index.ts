export * from './tokens.js';
export * from './core-module.js';
export * from './create-container.js';
