// SDP offer/answer for audio calls (RFC 3264), sdp-transform doing the syntax.
export * from './answer.js';
export * from './codecs.js';
export * from './crypto.js';
export * from './offer.js';
export * from './session.js';
