// The scope model. Each route needs one scope. `write` implies `read` (a key that may change a
// resource may also look at it); no other scope implies another, so `calls:write`, `telephony`
// and `usage:read` can be handed out narrowly (e.g. a key that only starts calls).

export const SCOPES = ['read', 'write', 'calls:write', 'telephony', 'usage:read'] as const;
export type Scope = (typeof SCOPES)[number];

const IMPLIES: Partial<Record<Scope, Scope[]>> = { write: ['read'] };

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scopes a key effectively holds, implications included. */
export function effectiveScopes(granted: readonly string[]): Set<Scope> {
  const out = new Set<Scope>();
  for (const s of granted) {
    if (!isScope(s)) continue;
    out.add(s);
    for (const implied of IMPLIES[s] ?? []) out.add(implied);
  }
  return out;
}
