// SIP transports: UDP, TCP and TLS, the shared receiver, routing rules, RFC 3263 server location
// and throttling.
export * from './receiver.js';
export * from './resolve.js';
export * from './routing.js';
export * from './size.js';
export * from './stream.js';
export * from './throttle.js';
export * from './udp.js';
