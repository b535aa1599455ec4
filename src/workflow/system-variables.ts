// Variables the engine seeds into every execution before the first node runs (src/engine/
// variables.ts sets them after the seeds, so a seed can never spoof them). Templates and
// expressions may read them without any node setting them. A variable that does not apply (the
// caller of a web session) is absent, so it renders as the empty string.

export const SYSTEM_VARIABLES = [
  /** Caller's number in E.164 (phone calls). */
  'caller',
  /** The number that was called (phone calls). */
  'callee',
  /** The call's id (phone calls). */
  'call_id',
  /** The session's id (web and test sessions). */
  'session_id',
  /** This execution's id. */
  'execution_id',
  /** `phone`, `web` or `test` (the text channel of simulations and `switchboard chat`). */
  'channel',
  'workflow_id',
  /** The published version number being run (a number). */
  'workflow_version',
  'project_id',
  'workspace_id',
  /** When the execution started, as an ISO 8601 UTC timestamp. */
  'started_at',
] as const;

export type SystemVariable = (typeof SYSTEM_VARIABLES)[number];

const SYSTEM_SET: ReadonlySet<string> = new Set(SYSTEM_VARIABLES);

export function isSystemVariable(name: string): name is SystemVariable {
  return SYSTEM_SET.has(name);
}
