// SQL for workspaces: made by operators (CLI, first start); read by id, by the SIP label inbound
// calls name in their request URI, and for their plan's allowances.
import type { Executor } from '../../store/database.js';
import { preparedQuery, queryFirst } from '../../store/prepared.js';
import type { WorkspaceTable } from '../../store/schema.js';

export type PlanColumns = Pick<WorkspaceTable, 'plan_voice_minutes' | 'plan_sessions' | 'plan_calls'>;

// Every call and session checks its workspace's plan: kept prepared.
const PLAN = preparedQuery<PlanColumns>(
  'workspace_plan',
  'select plan_voice_minutes, plan_sessions, plan_calls from workspaces where id = $1',
);

export const workspacesRepo = {
  find(ex: Executor, id: string): Promise<WorkspaceTable | undefined> {
    return ex.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** True once any workspace exists (the first start makes one). */
  async any(ex: Executor): Promise<boolean> {
    return (await ex.selectFrom('workspaces').select('id').limit(1).executeTakeFirst()) !== undefined;
  },

  /** The id of the workspace whose SIP label this is (inbound calls), if any. */
  async idBySipLabel(ex: Executor, label: string): Promise<string | undefined> {
    const row = await ex
      .selectFrom('workspaces')
      .select('id')
      .where('sip_label', '=', label)
      .executeTakeFirst();
    return row?.id;
  },

  plan(ex: Executor, id: string): Promise<PlanColumns | undefined> {
    return Promise.resolve(queryFirst(ex, PLAN, [id]));
  },

  async insert(ex: Executor, row: WorkspaceTable): Promise<void> {
    await ex.insertInto('workspaces').values(row).execute();
  },

  /** False when no workspace has the id. */
  async setPlan(ex: Executor, id: string, plan: PlanColumns, at: string): Promise<boolean> {
    const r = await ex
      .updateTable('workspaces')
      .set({ ...plan, updated_at: at })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
};
