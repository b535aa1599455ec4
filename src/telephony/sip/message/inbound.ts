// What to do with bytes that arrived: accept the message, answer with an error, or drop it. Puts
// the parser and the semantic checks behind one call for the transports.
import type { SipParseError } from './errors.js';
import { SipParseError as ParseError } from './errors.js';
import type { SipLimits } from './limits.js';
import { parseMessage } from './parse.js';
import type { SipHeader, SipMessage, SipRequest } from './types.js';
import type { RequestPolicy } from './validate.js';
import { DEFAULT_POLICY, validateRequest, validateResponse } from './validate.js';

export type Inbound =
  | { readonly action: 'accept'; readonly message: SipMessage; readonly notes: readonly string[] }
  | {
      readonly action: 'respond';
      readonly status: number;
      readonly reason: string;
      readonly headers: readonly SipHeader[];
      readonly why: string;
      /** The request when it parsed; otherwise the parse error, whose partial feeds buildErrorResponse. */
      readonly request?: SipRequest;
      readonly error?: SipParseError;
    }
  | { readonly action: 'discard'; readonly why: string };

export interface InboundOptions {
  readonly policy?: RequestPolicy;
  readonly limits?: Partial<SipLimits>;
  readonly stream?: boolean;
  readonly responseRole?: 'uac' | 'proxy';
}

export function classifyInbound(raw: Uint8Array | string, options: InboundOptions = {}): Inbound {
  let message: SipMessage;
  try {
    message = parseMessage(raw, {
      ...(options.limits ? { limits: options.limits } : {}),
      requireContentLength: options.stream === true,
    });
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    if (e.action === 'discard') return { action: 'discard', why: e.message };
    return { action: 'respond', status: e.status, reason: e.reason, headers: [], why: e.message, error: e };
  }
  if (message.kind === 'response') {
    const v = validateResponse(message, options.responseRole);
    return v.ok ? { action: 'accept', message, notes: [] } : { action: 'discard', why: v.why };
  }
  const v = validateRequest(message, options.policy ?? DEFAULT_POLICY);
  if (v.ok) return { action: 'accept', message, notes: v.notes };
  if (message.method === 'ACK') return { action: 'discard', why: v.why };
  return {
    action: 'respond',
    status: v.status,
    reason: v.reason,
    headers: v.headers,
    why: v.why,
    request: message,
  };
}
