export * from './adapters/index.js';
export * from './agent/index.js';
export * from './grammar/index.js';
export * from './memory/index.js';
export * from './messages/index.js';
export * from './protocol/index.js';
export * from './server/index.js';
export * from './tools/index.js';
