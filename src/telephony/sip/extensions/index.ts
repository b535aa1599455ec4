// SIP extensions the call controller needs: INFO DTMF, session timers (RFC 4028), REFER (RFC 3515).
export * from './info-dtmf.js';
export * from './refer.js';
export * from './session-timer.js';
