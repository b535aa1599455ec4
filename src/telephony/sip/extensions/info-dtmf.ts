// DTMF carried in SIP INFO bodies, as carriers and softphones send it: application/dtmf-relay
// ("Signal=5\r\nDuration=160") and application/dtmf ("5"). RFC 4733 in RTP is the media layer's.

export interface InfoDigit {
  /** 0-9, *, #, A-D; flash (16) is reported as '!'. */
  readonly digit: string;
  readonly durationMs?: number;
}

const DIGITS = /^[0-9*#A-Da-d!]$/;
const EVENT_CODES = '0123456789*#ABCD';

function normalize(signal: string): string | undefined {
  const s = signal.trim();
  if (DIGITS.test(s)) return s.toUpperCase();
  // Some gateways send the RFC 4733 event number instead of the character.
  if (/^\d{1,2}$/.test(s)) {
    const n = Number(s);
    if (n < EVENT_CODES.length) return EVENT_CODES[n];
    if (n === 16) return '!';
  }
  return undefined;
}

/** The digit in an INFO body, or undefined when the body is not DTMF we understand. */
export function parseInfoDtmf(
  contentType: string | undefined,
  body: Uint8Array | string,
): InfoDigit | undefined {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (type === 'application/dtmf') {
    const digit = normalize(text);
    return digit === undefined ? undefined : { digit };
  }
  if (type !== 'application/dtmf-relay') return undefined;
  let digit: string | undefined;
  let durationMs: number | undefined;
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    const key = m[1].toLowerCase();
    if (key === 'signal') digit = normalize(m[2]);
    else if (key === 'duration' && /^\d{1,6}$/.test(m[2])) durationMs = Number(m[2]);
  }
  if (digit === undefined) return undefined;
  return durationMs === undefined ? { digit } : { digit, durationMs };
}
