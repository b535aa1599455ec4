// What inbound admission and an answered outbound call share: the E.164 reading of a SIP user
// part, the phone session row a call runs its workflow in, and the frozen graph of that version.
import type { ServiceDeps } from '../context.js';
import { insertPendingSession } from '../sessions/session-lifecycle.js';
import { versionGraphs } from '../workflows/version-graphs.js';
import { workflowsRepo } from '../workflows/workflows.repo.js';
import { callsRepo } from './calls.repo.js';
import { isE164 } from '../../shared/e164.js';
import { parseJson, type Executor } from '../../store/database.js';
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
 * Inserts the pending phone session of a call (inside the call's transaction). The session takes
 * the call's metadata, so its session.ended webhook carries what POST /calls was given.
 */
export async function insertPhoneSession(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'newId'>,
  call: Pick<CallTable, 'id' | 'workspace_id' | 'project_id' | 'metadata'>,
  workflow: { id: string; version: number },
  variables: Record<string, unknown>,
): Promise<SessionTable> {
  const session = await insertPendingSession(trx, deps, {
    workspace_id: call.workspace_id,
    project_id: call.project_id,
    workflow_id: workflow.id,
    workflow_version: workflow.version,
    channel: 'phone',
    variables: JSON.stringify(variables),
    metadata: call.metadata,
    call_id: call.id,
  });
  await callsRepo.setSession(trx, call.id, session.id, session.created_at);
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
