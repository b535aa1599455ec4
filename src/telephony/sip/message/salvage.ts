// When a message cannot be parsed, decides whether it can still be answered: RFC 3261 routes a
// response by the top Via, so a request whose top Via is readable gets an error response, and
// anything else (responses, ACKs, messages without a usable Via) is dropped.
import type { PartialMessage } from './errors.js';
import { SyntaxFault, parseError } from './errors.js';
import type { SipParseError } from './errors.js';
import { canonicalName } from './header-names.js';
import { parseViaList } from './headers.js';
import type { SipLimits } from './limits.js';
import { Cursor, isToken } from './scanner.js';
import { readHost } from './uri.js';

const LOOSE_VIA =
  /^SIP\s*\/\s*[^\s/]+\s*\/\s*([A-Za-z0-9.!%*_+`'~-]+)\s+(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?:\s*:\s*(\d{1,5}))?/i;
const LOOSE_BRANCH = /;\s*branch\s*=\s*([A-Za-z0-9.!%*_+`'~-]+)/i;

/** Rebuilds a top Via that the strict grammar refused, from its sent-protocol, sent-by and branch. */
function looseVia(value: string): string | undefined {
  const m = LOOSE_VIA.exec(value);
  if (!m) return undefined;
  try {
    const cur = new Cursor(m[2], 'Via');
    readHost(cur);
    if (!cur.done) return undefined;
  } catch (e) {
    if (e instanceof SyntaxFault) return undefined;
    throw e;
  }
  if (m[3] !== undefined && Number(m[3]) > 65535) return undefined;
  const branch = LOOSE_BRANCH.exec(value);
  return `SIP/2.0/${m[1].toUpperCase()} ${m[2]}${m[3] !== undefined ? ':' + m[3] : ''}${branch ? ';branch=' + branch[1] : ''}`;
}

function strictVia(value: string): boolean {
  try {
    parseViaList(value);
    return true;
  } catch (e) {
    if (e instanceof SyntaxFault) return false;
    throw e;
  }
}

/** Reads what it can from the lines of a header section that failed to parse. */
export function salvage(lines: readonly string[], limits: SipLimits): PartialMessage {
  const first = lines[0] ?? '';
  let kind: PartialMessage['kind'] = 'unknown';
  let method: string | undefined;
  if (/^SIP\//i.test(first)) kind = 'response';
  else {
    const word = first.split(' ')[0];
    if (isToken(word)) {
      kind = 'request';
      method = word;
    }
  }
  const fields: Array<{ name: string; value: string }> = [];
  const end = Math.min(lines.length, limits.maxHeaders + 1);
  for (let i = 1; i < end; i++) {
    const line = lines[i];
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) {
      fields[fields.length - 1].value += ' ' + line.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push({ name: canonicalName(line.slice(0, colon).trim()), value: line.slice(colon + 1).trim() });
  }
  const via: string[] = [];
  const firstOf = new Map<string, string>();
  for (const f of fields) {
    if (f.name === 'Via') {
      if (strictVia(f.value)) via.push(f.value);
      else if (via.length === 0) {
        const loose = looseVia(f.value);
        if (loose === undefined) break;
        via.push(loose);
      } else via.push(f.value);
    } else if (!firstOf.has(f.name)) firstOf.set(f.name, f.value);
  }
  const partial: { -readonly [K in keyof PartialMessage]: PartialMessage[K] } = { kind, via };
  if (method !== undefined) partial.method = method;
  const from = firstOf.get('From');
  const to = firstOf.get('To');
  const callId = firstOf.get('Call-ID');
  const cseq = firstOf.get('CSeq');
  if (from !== undefined) partial.from = from;
  if (to !== undefined) partial.to = to;
  if (callId !== undefined) partial.callId = callId;
  if (cseq !== undefined) partial.cseq = cseq;
  return partial;
}

/** The SipParseError for a fault, answering only requests (never ACK) whose top Via was read. */
export function toParseError(fault: SyntaxFault, partial: PartialMessage): SipParseError {
  const answerable = partial.kind !== 'response' && partial.method !== 'ACK' && partial.via.length > 0;
  return parseError(answerable ? 'respond' : 'discard', fault.status, fault.reason, fault.message, partial);
}
