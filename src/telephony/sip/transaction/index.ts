// RFC 3261 transactions: client and server, INVITE and non-INVITE, and the UAS 2xx resender.
export * from './client.js';
export * from './keys.js';
export * from './manager.js';
export * from './retransmit-2xx.js';
export * from './server.js';
export * from './types.js';
