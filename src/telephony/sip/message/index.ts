// The SIP message layer: parse, validate, build and serialize RFC 3261 messages.
export * from './access.js';
export * from './build.js';
export * from './error-response.js';
export * from './errors.js';
export * from './framer.js';
export * from './header-names.js';
export * from './headers.js';
export * from './inbound.js';
export * from './limits.js';
export * from './parse.js';
export * from './serialize.js';
export * from './types.js';
export * from './uri.js';
export * from './validate.js';
