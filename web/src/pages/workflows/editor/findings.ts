// Validation findings ({node_id, field, message}) from the two places they come from, the validate
// result and a refused publish's 422 `errors` (keyed `<node_id>.<field>`, or `graph`), sorted
// onto the steps and form fields they name.
import type { Finding } from './graph';

/**
 * A 422's `errors` back into findings. A key is split at the longest node id it starts with (node
 * ids may hold dots); a key naming no node is a finding on the whole graph.
 */
export function findingsFromErrors(errors: Record<string, string[]>, nodeIds: string[]): Finding[] {
  const ids = [...nodeIds].sort((a, b) => b.length - a.length);
  const out: Finding[] = [];
  for (const [key, messages] of Object.entries(errors)) {
    const id = ids.find((n) => key === n || key.startsWith(n + '.'));
    const node_id = id ?? '';
    const field = id ? key.slice(id.length + 1) : key === 'graph' ? '' : key;
    for (const message of messages) out.push({ node_id, field, message });
  }
  return out;
}

export function findingsByNode(findings: Finding[]): Map<string, Finding[]> {
  const map = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = map.get(f.node_id) ?? [];
    list.push(f);
    map.set(f.node_id, list);
  }
  return map;
}

/** Whether a finding's field is `path` or lies below it (`exits[1].handle` under `exits`). */
export function fieldUnder(field: string, path: string): boolean {
  return field === path || field.startsWith(path + '.') || field.startsWith(path + '[');
}

/**
 * Messages for one form field of one node. A message about the field itself is shown beside its
 * label, so the field's name leading it ("`timeout_seconds` must be …") is dropped: "Must be …".
 * One about a field below it keeps its full text, as the name says which part is meant.
 */
export function messagesFor(findings: Finding[], nodeId: string, path: string): string[] {
  return findings
    .filter((f) => f.node_id === nodeId && fieldUnder(f.field, path))
    .map((f) => (f.field === path ? besideField(f.message, path) : f.message));
}

/**
 * A message without the field's name leading it: its path (`auth.type`) or its last part
 * (`secret_variable` for `auth.secret_variable`), quoted in backticks or not; a following "is"
 * goes too ("is required" reads "Required"). A message that does not start with the name is kept.
 */
export function besideField(message: string, field: string): string {
  const last = /[^.[\]]+$/.exec(field)?.[0];
  for (const name of new Set([field, last])) {
    if (!name) continue;
    for (const lead of [`\`${name}\` `, `${name} `]) {
      if (!message.startsWith(lead)) continue;
      const rest = message.slice(lead.length).replace(/^is /, '');
      if (rest) return rest[0]!.toUpperCase() + rest.slice(1);
    }
  }
  return message;
}
