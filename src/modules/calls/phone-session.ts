// What inbound admission and an answered outbound call share: the E.164 reading of a SIP user
// part, the phone session row a call runs its workflow in, and the frozen graph of that version.
import type { ServiceDeps } from '../context.js';
import { sessionsRepo } from '../sessions/sessions.repo.js';
import { versionGraphs } from '../workflows/version-graphs.js';
import { workflowsRepo } from '../workflows/workflows.repo.js';
import { isE164 } from '../../shared/e164.js';
import { parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { CallTable, SessionTable } from '../../store/schema.js';
import type { WorkflowGraph } from '../../workflow/graph.types.js';

/** What the media side needs to run a call's workflow. */
export interface RunnableCall {
  call: CallTable;
  session: SessionTable;
  workflowVersion: number;
  graph: WorkflowGraph;
  /** Seed values for the workflow's variables (a dispatch rule's, or POST /calls'). */
  variables: Record<string, unknown>;
}

/**
 * A SIP user part (`+14155550100`, `14155550100;npdi`, `%2B1-415-555-0100`, `004930123456`) as
 * E.164, or null when it is not a possible international number. National formats without a
 * country code cannot be read without guessing and are refused.
 */
export function e164FromSipUser(user: string | null | undefined): string | null {
  if (!user) return null;
  let text = user;
  try {
    text = decodeURIComponent(user);
  } catch {
    // keep the raw text; the shape check below decides
  }
  let compact = text.split(';')[0]!.replace(/[\s().-]/g, '');
  if (compact.startsWith('00')) compact = `+${compact.slice(2)}`;
  else if (/^\d+$/.test(compact)) compact = `+${compact}`;
  return isE164(compact) ? compact : null;
}

/**
 * Inserts the phone session of a call (inside the call's transaction): under the id the call row
 * names already (admission writes the call knowing its session, so the call is written once), or
 * a new one when the call names none (an outbound call's, made on answer). Pending until the call
 * is answered, or `active` from now when it is being answered. The session takes the call's
 * metadata, so its session.ended webhook carries what POST /calls was given.
 */
export async function insertPhoneSession(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'newId'>,
  call: Pick<CallTable, 'id' | 'workspace_id' | 'project_id' | 'metadata' | 'session_id'>,
  workflow: { id: string; version: number },
  variables: Record<string, unknown>,
  status: 'pending' | 'active' = 'pending',
): Promise<SessionTable> {
  const now = toDbTime(deps.clock.now());
  const session: SessionTable = {
    id: call.session_id ?? deps.newId(),
    workspace_id: call.workspace_id,
    project_id: call.project_id,
    workflow_id: workflow.id,
    workflow_version: workflow.version,
    channel: 'phone',
    status,
    variables: JSON.stringify(variables),
    metadata: call.metadata,
    call_id: call.id,
    end_reason: null,
    started_at: status === 'active' ? now : null,
    ended_at: null,
    created_at: now,
    updated_at: now,
  };
  await sessionsRepo.insert(trx, session);
  return session;
}

/**
 * The graph of a published version (shared and frozen: versions never change, so it is read once
 * per process); null when the version row is missing.
 */
export function loadGraph(ex: Executor, workflowId: string, version: number): Promise<WorkflowGraph | null> {
  return versionGraphs.get(workflowId, version, async () => {
    const row = await workflowsRepo.findVersion(ex, workflowId, version);
    return row ? parseJson<WorkflowGraph>(row.graph, { nodes: [], edges: [] }) : null;
  });
}
