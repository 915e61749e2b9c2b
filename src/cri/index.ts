export * from './client.js';
export * from './endpoint.js';
export * from './errors.js';
export * from './runtime-service.js';
export * from './types.js';
