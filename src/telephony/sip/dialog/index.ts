// Dialogs (RFC 3261 12) as values and pure functions.
export * from './dialog.js';
