// Workspaces are made by operators (CLI, first start), not through the public API. Each gets a
// stable SIP label, the <workspace_sip_domain> of its trunks' origination_uri.
import { randomBytes } from 'node:crypto';
import { inTransaction, toDbTime } from '../../store/database.js';
import type { WorkspaceTable } from '../../store/schema.js';
import { insertApiKey } from '../api-keys/api-keys.service.js';
import { SCOPES } from '../api-keys/scopes.js';
import type { ServiceDeps } from '../context.js';
import { workspacesRepo } from './workspaces.repo.js';

export interface PlanAllowances {
  voice_minutes: number | null;
  sessions: number | null;
  calls: number | null;
}

export async function createWorkspace(
  deps: Pick<ServiceDeps, 'db' | 'clock' | 'newId'>,
  input: { name: string; ownerEmail?: string | null },
): Promise<{ workspace: WorkspaceTable; apiKey: string }> {
  return inTransaction(deps.db, async (trx) => {
    const now = toDbTime(deps.clock.now());
    const workspace: WorkspaceTable = {
      id: deps.newId(),
      name: input.name,
      owner_email: input.ownerEmail ?? null,
      sip_label: `ws-${randomBytes(5).toString('hex')}`,
      plan_voice_minutes: null,
      plan_sessions: null,
      plan_calls: null,
      created_at: now,
      updated_at: now,
    };
    await workspacesRepo.insert(trx, workspace);
    const key = await insertApiKey(trx, deps, workspace.id, 'default', SCOPES);
    return { workspace, apiKey: key.key };
  });
}

/** True once any workspace exists. */
export function anyWorkspace(deps: Pick<ServiceDeps, 'db'>): Promise<boolean> {
  return workspacesRepo.any(deps.db);
}

export async function findWorkspace(
  deps: Pick<ServiceDeps, 'db'>,
  id: string,
): Promise<WorkspaceTable | undefined> {
  return workspacesRepo.find(deps.db, id);
}

export async function setPlan(
  deps: Pick<ServiceDeps, 'db' | 'clock'>,
  workspaceId: string,
  plan: PlanAllowances,
): Promise<boolean> {
  const columns = {
    plan_voice_minutes: plan.voice_minutes,
    plan_sessions: plan.sessions,
    plan_calls: plan.calls,
  };
  return workspacesRepo.setPlan(deps.db, workspaceId, columns, toDbTime(deps.clock.now()));
}
