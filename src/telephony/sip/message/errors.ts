// The only error the SIP message layer throws. It carries what the receiver may still do with the
// broken message: answer it (a Via could be read, so a response has somewhere to go) or drop it.

/** Pieces of a message that could be read even though the whole could not, for an error response. */
export interface PartialMessage {
  readonly kind: 'request' | 'response' | 'unknown';
  readonly method?: string;
  /** Via values that could be read, top first, in a form fit to copy into a response. */
  readonly via: readonly string[];
  readonly from?: string;
  readonly to?: string;
  readonly callId?: string;
  readonly cseq?: string;
}

export type ParseAction = 'respond' | 'discard';

export class SipParseError extends Error {
  override readonly name = 'SipParseError';

  constructor(
    /** 'respond' when a response can be routed back (a request with a readable Via), else 'discard'. */
    readonly action: ParseAction,
    /** The status to answer with when action is 'respond' (400, 505, 416, 513…). */
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly partial?: PartialMessage,
  ) {
    super(message);
  }
}

/**
 * A SipParseError without a stack trace: the error describes bad input, not a place in our code,
 * and capturing stacks was most of the cost of rejecting garbage (see bench/sip-fuzz.ts).
 */
export function parseError(
  action: ParseAction,
  status: number,
  reason: string,
  message: string,
  partial?: PartialMessage,
): SipParseError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new SipParseError(action, status, reason, message, partial);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * Raised by the grammar code; parse.ts turns it into a SipParseError once it knows whether a
 * response is possible. It never leaves the message layer, and is deliberately not an Error:
 * it is thrown on every rejected input, and stack capture would dominate the cost.
 */
export class SyntaxFault {
  constructor(
    readonly message: string,
    readonly status = 400,
    readonly reason = 'Bad Request',
  ) {}
}
