// What a call leg's owner does inside an established dialog beyond BYE: send a request (REFER,
// INFO, NOTIFY, re-INVITE) and wait for its final response, and take the far end's requests the
// leg itself does not handle (INFO DTMF, NOTIFY for our REFER, REFER, re-INVITE, UPDATE).
// UasLeg and UacLeg share this so the call controller treats both directions alike.
import type { HeaderInit } from './message/build.js';
import type { SipRequest, SipResponse } from './message/types.js';

export interface InDialogSend {
  readonly headers?: HeaderInit[];
  readonly body?: string;
}

/** Answers a request handed to an owner; the body, when given, needs its Content-Type header. */
export type Respond = (status: number, reason: string, headers?: HeaderInit[], body?: string) => void;

/**
 * Gets the far end's in-dialog requests other than ACK and BYE. Returns true when it answered
 * (or will answer) through `respond`; false leaves the leg's default (200 for INFO and OPTIONS,
 * 488 for offers it cannot take, 501 otherwise).
 */
export type InDialogHandler = (req: SipRequest, respond: Respond) => boolean;

/**
 * In-dialog requests that carry our Contact: target refreshes (RFC 3261 12.2), REFER, and the
 * requests of a subscription (RFC 6665 4.1.1, 4.2.2: a REFER's NOTIFYs).
 */
export const TAKES_CONTACT: ReadonlySet<string> = new Set([
  'INVITE',
  'UPDATE',
  'REFER',
  'NOTIFY',
  'SUBSCRIBE',
]);

export class DialogGoneError extends Error {
  constructor(message = 'the dialog is not established or has ended') {
    super(message);
    this.name = 'DialogGoneError';
  }
}

/** A request timed out (timer F/B) or the transport failed. */
export class InDialogTimeoutError extends Error {
  constructor(method: string) {
    super(`no final response to ${method}`);
    this.name = 'InDialogTimeoutError';
  }
}

/** What both legs offer their owner once the dialog exists. */
export interface DialogRequests {
  /** Sends `method` in the dialog; resolves with the final response (any status). */
  sendInDialog(method: string, options?: InDialogSend): Promise<SipResponse>;
  /** Installs the handler for the far end's other in-dialog requests (replaces any earlier one). */
  onRequest(handler: InDialogHandler | undefined): void;
}
