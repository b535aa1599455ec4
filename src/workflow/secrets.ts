// How a variable is marked secret: by name. A name starting with `secret_` (e.g. `secret_crm_token`)
// is secret wherever it appears, so the engine can redact it from events, transcripts and
// `workflow.completed` without knowing where the value came from. A prefix (rather than a list in
// the graph) keeps the rule the same for seed variables, webhook mappings and set_variables alike.

export const SECRET_VARIABLE_PREFIX = 'secret_';

/** What the engine writes in place of a secret value. */
export const REDACTED = '[redacted]';

export function isSecretVariable(name: string): boolean {
  return name.startsWith(SECRET_VARIABLE_PREFIX);
}

/** A copy of `variables` with every secret value replaced by REDACTED (top-level names only). */
export function redactVariables(variables: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables)) {
    out[name] = isSecretVariable(name) ? REDACTED : value;
  }
  return out;
}
