// Builds requests and responses from parts, through the same code that reads parsed messages, so
// what we send is what we would accept. Content-Length is always set from the body.
import { assemble } from './assemble.js';
import { SyntaxFault, parseError } from './errors.js';
import { canonicalName } from './header-names.js';
import { isToken, trimWs } from './scanner.js';
import { withLimits } from './limits.js';
import type { SipHeader, SipRequest, SipResponse } from './types.js';
import type { Uri } from './uri.js';
import { parseUri } from './uri.js';

export type HeaderInit = SipHeader | readonly [string, string];

function toBody(body: Uint8Array | string | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

function normalize(headers: readonly HeaderInit[], bodyLength: number): SipHeader[] {
  const out: SipHeader[] = [];
  for (const h of headers) {
    const [name, value] = Array.isArray(h)
      ? (h as readonly [string, string])
      : [(h as SipHeader).name, (h as SipHeader).value];
    if (!isToken(name)) throw new SyntaxFault(`bad header name ${JSON.stringify(name)}`);
    if (/[\r\n]/.test(value)) throw new SyntaxFault(`${name}: CR or LF in header value`);
    const canonical = canonicalName(name);
    if (canonical !== 'Content-Length') out.push({ name: canonical, value: trimWs(value) });
  }
  out.push({ name: 'Content-Length', value: String(bodyLength) });
  return out;
}

function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SyntaxFault) throw parseError('discard', e.status, e.reason, e.message);
    throw e;
  }
}

export interface RequestInit {
  readonly method: string;
  readonly uri: Uri | string;
  readonly headers: readonly HeaderInit[];
  readonly body?: Uint8Array | string;
}

/** A request from parts; throws SipParseError if the parts would not parse. */
export function createRequest(init: RequestInit): SipRequest {
  return guarded(() => {
    if (!isToken(init.method)) throw new SyntaxFault('bad method');
    const uri = typeof init.uri === 'string' ? parseUri(init.uri, 'Request-URI') : init.uri;
    const body = toBody(init.body);
    const headers = normalize(init.headers, body.length);
    return assemble({ kind: 'request', method: init.method, uri }, headers, body, withLimits()) as SipRequest;
  });
}

export interface ResponseInit {
  readonly status: number;
  readonly reason: string;
  readonly headers: readonly HeaderInit[];
  readonly body?: Uint8Array | string;
}

export function createResponse(init: ResponseInit): SipResponse {
  return guarded(() => {
    if (!Number.isInteger(init.status) || init.status < 100 || init.status > 699) {
      throw new SyntaxFault('bad status code');
    }
    if (/[\r\n]/.test(init.reason)) throw new SyntaxFault('CR or LF in reason phrase');
    const body = toBody(init.body);
    const headers = normalize(init.headers, body.length);
    const start = { kind: 'response' as const, status: init.status, reason: init.reason };
    return assemble(start, headers, body, withLimits()) as SipResponse;
  });
}

export interface ReplyOptions {
  /** Added to To when the request's To has none (RFC 3261 8.2.6.2); not for 100 Trying. */
  readonly toTag?: string;
  readonly headers?: readonly HeaderInit[];
  readonly body?: Uint8Array | string;
}

/**
 * A response to a request (RFC 3261 8.2.6): Via, From, To, Call-ID and CSeq copied, the To tag
 * added, and Record-Route copied on responses that can create a dialog (12.1.1).
 */
export function createReply(
  req: SipRequest,
  status: number,
  reason: string,
  options: ReplyOptions = {},
): SipResponse {
  const copied: HeaderInit[] = [];
  for (const h of req.headers) {
    if (h.name === 'Via' || h.name === 'From' || h.name === 'Call-ID' || h.name === 'CSeq') copied.push(h);
    else if (h.name === 'To') {
      const addTag = req.to.tag === undefined && options.toTag !== undefined && status > 100;
      copied.push({ name: 'To', value: addTag ? `${h.value};tag=${options.toTag}` : h.value });
    } else if (h.name === 'Record-Route' && status > 100 && status < 300) copied.push(h);
  }
  return createResponse({
    status,
    reason,
    headers: [...copied, ...(options.headers ?? [])],
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}
