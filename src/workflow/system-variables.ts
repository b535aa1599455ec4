// Variables the engine seeds into every execution before the first node runs. Templates and
// expressions may read them without any node setting them. Values are strings unless noted; on a
// web or text session the call-related ones are empty strings.

export const SYSTEM_VARIABLES = [
  /** Caller's number in E.164 (phone), or the session's user identity (web/text). */
  'caller',
  /** Display name from the SIP From header, when the carrier sent one. */
  'caller_name',
  /** The number or address that was called (phone), or '' (web/text). */
  'callee',
  /** `inbound` or `outbound`. */
  'direction',
  /** The call's id (phone), or ''. */
  'call_id',
  /** The session's id (web/text), or ''. */
  'session_id',
  /** This execution's id. */
  'execution_id',
  /** `phone`, `web` or `text`. */
  'channel',
  'workflow_id',
  /** The published version number being run (a number). */
  'workflow_version',
  'project_id',
  /** The current time as an ISO 8601 UTC timestamp, read from the engine's clock at each use. */
  'now',
] as const;

export type SystemVariable = (typeof SYSTEM_VARIABLES)[number];

const SYSTEM_SET: ReadonlySet<string> = new Set(SYSTEM_VARIABLES);

export function isSystemVariable(name: string): name is SystemVariable {
  return SYSTEM_SET.has(name);
}
