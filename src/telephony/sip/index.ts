// The SIP stack (telephony/sip): messages, digest auth, SDP offer/answer, transports and
// transactions. It knows nothing of workflows; call control builds on it.
export * as message from './message/index.js';
export * as sdp from './sdp/index.js';
export * as dialog from './dialog/index.js';
export * as extensions from './extensions/index.js';
export * as transaction from './transaction/index.js';
export * as transport from './transport/index.js';
export * from './auth-retry.js';
export * from './digest.js';
export * from './digest-server.js';
export * from './stack.js';
export * from './uac-leg.js';
export * from './uas-leg.js';
