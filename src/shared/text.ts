// Text that a store keeps exactly as sent. PostgreSQL refuses the NUL character in text columns
// (SQLite keeps it), and both drivers silently turn an unpaired UTF-16 surrogate into U+FFFD.
// Input from clients is refused with a reason (badTextReason); text the service produces from
// outside sources (a webhook's response spoken back, an LLM's output) is made storable instead.

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

/** Why a string cannot be stored as sent, or null when it can. */
export function badTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (UNPAIRED_SURROGATE.test(text)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return null;
}

/** The text with NUL characters and unpaired surrogates replaced by U+FFFD, as every store keeps it. */
export function storableText(text: string): string {
  if (badTextReason(text) === null) return text;
  return text.replaceAll('\u0000', '\uFFFD').replace(UNPAIRED_SURROGATES, '\uFFFD');
}

export interface BadText {
  /** Dotted path of the value (or key) inside the checked object: `variables.name`, `graph.nodes.0`. */
  field: string;
  reason: string;
}

/** The first string (value or object key) inside `value` that cannot be stored, depth first. */
export function findBadText(value: unknown, field = ''): BadText | null {
  if (typeof value === 'string') {
    const reason = badTextReason(value);
    return reason ? { field, reason } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBadText(value[i], join(field, String(i)));
      if (found) return found;
    }
    return null;
  }
  for (const [key, inner] of Object.entries(value)) {
    const keyReason = badTextReason(key);
    if (keyReason) return { field: join(field, storableText(key)), reason: `key ${keyReason}` };
    const found = findBadText(inner, join(field, key));
    if (found) return found;
  }
  return null;
}

const join = (base: string, part: string): string => (base ? `${base}.${part}` : part);
