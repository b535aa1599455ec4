// Safe lookup of dotted variable paths (`caller`, `customer.tier`, `items.0.sku`), shared by
// templates and the expression language. Only own properties of objects and indices of arrays
// are followed, and the names that reach into JavaScript's machinery are refused, so a
// template or expression can never read `constructor`, `__proto__` or a prototype method.

const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

export function isForbiddenSegment(segment: string): boolean {
  return FORBIDDEN_SEGMENTS.has(segment);
}

/** The value at `segments` inside `root`, or undefined when any step is missing or not allowed. */
export function lookupPath(root: unknown, segments: readonly string[]): unknown {
  let current: unknown = root;
  for (const segment of segments) {
    if (isForbiddenSegment(segment)) return undefined;
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment)) return undefined;
      const index = Number(segment);
      if (index >= current.length) return undefined;
      current = current[index];
    } else if (typeof current === 'object' && current !== null) {
      // Own data only: inherited members (methods, prototypes) are never reachable.
      if (!Object.hasOwn(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** How a value reads inside text: strings as they are, missing as empty, structures as JSON. */
export function valueToText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? '';
    } catch {
      return '';
    }
  }
  return '';
}
