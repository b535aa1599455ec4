// Reading header fields the typed view does not cover: first value, all values, comma lists.
import { canonicalName } from './header-names.js';
import type { SipHeader, SipMessage } from './types.js';

/** Known names are canonical already; unknown ones keep the peer's spelling, so compare without case. */
function matcher(name: string): (h: SipHeader) => boolean {
  const want = canonicalName(name);
  const lower = want.toLowerCase();
  return (h) => h.name === want || h.name.toLowerCase() === lower;
}

export function getHeader(m: { readonly headers: readonly SipHeader[] }, name: string): string | undefined {
  const match = matcher(name);
  for (const h of m.headers) if (match(h)) return h.value;
  return undefined;
}

export function getHeaders(m: { readonly headers: readonly SipHeader[] }, name: string): string[] {
  const match = matcher(name);
  const out: string[] = [];
  for (const h of m.headers) if (match(h)) out.push(h.value);
  return out;
}

/**
 * Splits list-valued header fields on commas outside quoted strings and angle brackets, joining
 * repeated header lines (RFC 3261 7.3.1 makes the two forms equivalent).
 */
export function getHeaderList(m: { readonly headers: readonly SipHeader[] }, name: string): string[] {
  const out: string[] = [];
  for (const value of getHeaders(m, name)) out.push(...splitList(value));
  return out;
}

export function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inQuote = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (inQuote) {
      if (c === '\\') i++;
      else if (c === '"') inQuote = false;
    } else if (c === '"') inQuote = true;
    else if (c === '<') depth++;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(value.slice(start).trim());
  return out.filter((s) => s.length > 0);
}

/**
 * Option tags or methods of Require, Supported, Allow and the like, across all their lines,
 * as written. Lenient: empty elements are skipped (validate.ts is where strictness lives).
 */
export function getTokens(m: SipMessage, name: string): string[] {
  const out: string[] = [];
  for (const value of getHeaders(m, name)) {
    for (const item of value.split(',')) {
      const t = item.trim();
      if (t.length > 0) out.push(t);
    }
  }
  return out;
}
