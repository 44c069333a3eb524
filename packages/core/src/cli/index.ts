export * from './cli-types.js';
export * from './run-cli.js';
export * from './commands.js';
export * from './info-report.js';
export * from './info-render.js';
