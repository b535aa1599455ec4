// Character classes of the RFC 3261 grammar and a small cursor that walks one header value.
// Header values reach here already unfolded, so linear whitespace is only SP and HTAB.
import { SyntaxFault } from './errors.js';

function charTable(extra: string, alphanum = true): Uint8Array {
  const t = new Uint8Array(128);
  if (alphanum) {
    for (let c = 48; c <= 57; c++) t[c] = 1;
    for (let c = 65; c <= 90; c++) t[c] = 1;
    for (let c = 97; c <= 122; c++) t[c] = 1;
  }
  for (const ch of extra) t[ch.charCodeAt(0)] = 1;
  return t;
}

const MARK = "-_.!~*'()";
export const TOKEN = charTable("-.!%*_+`'~");
/** Call-ID words allow a wider set than tokens. */
export const WORD = charTable('-.!%*_+`\'~()<>:\\"/[]?{}');
export const UNRESERVED = charTable(MARK);
export const USER_CHARS = charTable(MARK + '&=+$,;?/');
export const PASSWORD_CHARS = charTable(MARK + '&=+$,');
export const PARAM_CHARS = charTable(MARK + '[]/:&+$');
export const HEADER_CHARS = charTable(MARK + '[]/?:+$');
export const HOST_CHARS = charTable('-.');
export const DIGITS = charTable('', false);
for (let c = 48; c <= 57; c++) DIGITS[c] = 1;

export function inClass(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

export function isToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (!inClass(TOKEN, s.charCodeAt(i))) return false;
  return true;
}

export function isWs(c: number): boolean {
  return c === 32 || c === 9;
}

/** Trims SP and HTAB only: other Unicode spaces (NBSP, BOM) are content in SIP. */
export function trimWs(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWs(s.charCodeAt(a))) a++;
  while (b > a && isWs(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

export class Cursor {
  pos = 0;

  constructor(
    readonly s: string,
    readonly what: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.s.length;
  }

  peek(): number {
    return this.pos < this.s.length ? this.s.charCodeAt(this.pos) : -1;
  }

  fail(message: string): never {
    throw new SyntaxFault(`${this.what}: ${message} at offset ${this.pos}`);
  }

  /** Skips SP/HTAB; says whether there was any. */
  skipWs(): boolean {
    const start = this.pos;
    while (this.pos < this.s.length && isWs(this.s.charCodeAt(this.pos))) this.pos++;
    return this.pos > start;
  }

  /** Consumes SWS ch SWS if ch comes next (after optional whitespace); otherwise leaves pos alone. */
  trySep(ch: string): boolean {
    const save = this.pos;
    this.skipWs();
    if (this.s[this.pos] === ch) {
      this.pos++;
      this.skipWs();
      return true;
    }
    this.pos = save;
    return false;
  }

  sep(ch: string): void {
    if (!this.trySep(ch)) this.fail(`expected "${ch}"`);
  }

  take(table: Uint8Array): string {
    const start = this.pos;
    while (this.pos < this.s.length && inClass(table, this.s.charCodeAt(this.pos))) this.pos++;
    return this.s.slice(start, this.pos);
  }

  token(): string {
    const t = this.take(TOKEN);
    if (t.length === 0) this.fail('expected a token');
    return t;
  }

  digits(maxLen = 10): number {
    const d = this.take(DIGITS);
    if (d.length === 0) this.fail('expected digits');
    // Leading zeros are legal (wsinv's "0068"); only the significant digits count toward the bound.
    if (d.replace(/^0+(?=.)/, '').length > maxLen) this.fail('number too large');
    return Number(d);
  }

  /** Reads a quoted-string starting at '"'; returns it with quotes and escapes intact. */
  quotedRaw(): string {
    const start = this.pos;
    if (this.s.charCodeAt(this.pos) !== 34) this.fail('expected a quoted string');
    this.pos++;
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c === 34) {
        this.pos++;
        return this.s.slice(start, this.pos);
      }
      if (c === 92) {
        // quoted-pair: any octet but CR and LF may be escaped (RFC 3261 25.1).
        const n = this.s.charCodeAt(this.pos + 1);
        if (Number.isNaN(n) || n === 10 || n === 13) this.fail('bad escape in quoted string');
        this.pos += 2;
        continue;
      }
      if ((c < 32 && c !== 9) || c === 127) this.fail('control character in quoted string');
      this.pos++;
    }
    return this.fail('unterminated quoted string');
  }

  /** Reads a quoted-string and returns its content with escapes resolved. */
  quoted(): string {
    return unquote(this.quotedRaw());
  }
}

/** Content of a quoted-string ("a\"b" → a"b); a value without quotes comes back unchanged. */
export function unquote(raw: string): string {
  if (raw.length < 2 || raw[0] !== '"' || raw[raw.length - 1] !== '"') return raw;
  const inner = raw.slice(1, -1);
  return inner.includes('\\') ? inner.replace(/\\([\s\S])/g, '$1') : inner;
}

/**
 * Wraps text in a quoted-string, escaping quote, backslash and controls. CR and LF cannot be carried
 * at all (they would end the header line), so they become spaces rather than a header injection.
 */
export function quote(text: string): string {
  const safe = text.replace(/[\r\n]/g, ' ');
  // eslint-disable-next-line no-control-regex
  return '"' + safe.replace(/["\\\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, '\\$&') + '"';
}
