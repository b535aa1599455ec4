// A minimal error response to a request that may not even have parsed, copying those of Via,
// From, To, Call-ID and CSeq that could be read (a field that cannot be read is left out rather
// than echoed, so the response itself stays well-formed where it can). Returns null when no response may be sent: responses,
// ACKs and messages without a readable Via are never answered.
import { createHash } from 'node:crypto';
import { createReply } from './build.js';
import type { HeaderInit } from './build.js';
import type { PartialMessage } from './errors.js';
import { SipParseError, SyntaxFault } from './errors.js';
import { parseCSeq, parseCallId, parseNameAddr } from './headers.js';
import { parseMessage } from './parse.js';
import { serialize } from './serialize.js';
import type { SipMessage } from './types.js';

export interface ErrorResponseOptions {
  readonly headers?: readonly HeaderInit[];
  /** To tag to add; by default one derived from the request, so retransmissions get the same tag. */
  readonly toTag?: string;
}

function derivedTag(parts: ReadonlyArray<string | undefined>): string {
  return createHash('sha1').update(parts.join('\n')).digest('hex').slice(0, 12);
}

/** Runs a strict reader; undefined when the field cannot be read (it is then left out). */
function readable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (e instanceof SyntaxFault) return undefined;
    throw e;
  }
}

function fromPartial(
  p: PartialMessage,
  status: number,
  reason: string,
  o: ErrorResponseOptions,
): Buffer | null {
  if (p.kind === 'response' || p.method === 'ACK' || p.via.length === 0) return null;
  const lines = [`SIP/2.0 ${status} ${reason.replace(/[\r\n]/g, ' ')}`];
  for (const v of p.via) lines.push(`Via: ${v}`);
  const { from, to, callId, cseq } = p;
  if (from !== undefined && readable(() => parseNameAddr(from, 'From'))) lines.push(`From: ${from}`);
  const toAddr = to === undefined ? undefined : readable(() => parseNameAddr(to, 'To'));
  if (to !== undefined && toAddr) {
    const tag = o.toTag ?? derivedTag([callId, from, cseq, p.via[0]]);
    lines.push(toAddr.tag === undefined ? `To: ${to};tag=${tag}` : `To: ${to}`);
  }
  if (callId !== undefined && readable(() => parseCallId(callId))) lines.push(`Call-ID: ${callId}`);
  if (cseq !== undefined && readable(() => parseCSeq(cseq))) lines.push(`CSeq: ${cseq}`);
  for (const h of o.headers ?? []) {
    const [name, value] = Array.isArray(h)
      ? h
      : [(h as { name: string }).name, (h as { value: string }).value];
    lines.push(`${name}: ${String(value).replace(/[\r\n]/g, ' ')}`);
  }
  lines.push('Content-Length: 0', '', '');
  return Buffer.from(lines.join('\r\n'), 'utf8');
}

/** Builds the response bytes, or null when the source must not be answered. */
export function buildErrorResponse(
  source: Uint8Array | string | SipMessage | SipParseError | PartialMessage,
  status: number,
  reason: string,
  options: ErrorResponseOptions = {},
): Buffer | null {
  let msg: SipMessage | undefined;
  let partial: PartialMessage | undefined;
  if (source instanceof SipParseError) partial = source.partial;
  else if (typeof source === 'string' || source instanceof Uint8Array) {
    try {
      msg = parseMessage(source);
    } catch (e) {
      if (!(e instanceof SipParseError)) throw e;
      partial = e.partial;
    }
  } else if ('kind' in source && 'headers' in source) msg = source;
  else partial = source;
  if (msg) {
    if (msg.kind !== 'request' || msg.method === 'ACK') return null;
    const toTag =
      options.toTag ?? derivedTag([msg.callId, msg.from.tag, String(msg.cseq.seq), msg.via[0].branch]);
    return serialize(createReply(msg, status, reason, { toTag, headers: options.headers ?? [] }));
  }
  return partial ? fromPartial(partial, status, reason, options) : null;
}
