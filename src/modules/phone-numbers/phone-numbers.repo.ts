// SQL for phone numbers, always scoped by workspace. Dispatch rules are stored as a JSON array.
import type { PageParams } from '../../shared/paging.js';
import { parseJson, type Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import type { PhoneNumberTable } from '../../store/schema.js';
import type { DispatchRule } from './dispatch/rule.js';

/** The number's stored dispatch rules, in stored order. */
export function rulesOf(row: Pick<PhoneNumberTable, 'dispatch_rules'>): DispatchRule[] {
  return parseJson<DispatchRule[]>(row.dispatch_rules, []);
}

/**
 * Numbers (E.164, sorted) whose dispatch rules name the workflow: what blocks deleting it.
 * The LIKE narrows on the id's text; the parsed rules decide.
 */
export async function workflowAttachedNumbers(
  ex: Executor,
  workspaceId: string,
  workflowId: string,
): Promise<string[]> {
  let qb = ex
    .selectFrom('phone_numbers')
    .select(['number', 'dispatch_rules'])
    .where('workspace_id', '=', workspaceId);
  if (!/[\\%_]/.test(workflowId)) qb = qb.where('dispatch_rules', 'like', `%${workflowId}%`);
  const rows = await qb.orderBy('number').execute();
  return rows.filter((r) => rulesOf(r).some((rule) => rule.workflow_id === workflowId)).map((r) => r.number);
}

export const phoneNumbersRepo = {
  find(ex: Executor, workspaceId: string, id: string): Promise<PhoneNumberTable | undefined> {
    return ex
      .selectFrom('phone_numbers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** The registered number (E.164) of a workspace: how inbound calls find their rules. */
  findByNumber(ex: Executor, workspaceId: string, number: string): Promise<PhoneNumberTable | undefined> {
    return ex
      .selectFrom('phone_numbers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('number', '=', number)
      .executeTakeFirst();
  },

  /** The numbers a trunk carries, by number (a registered trunk's inbound calls pick among them). */
  onTrunk(ex: Executor, workspaceId: string, trunkId: string): Promise<PhoneNumberTable[]> {
    return ex
      .selectFrom('phone_numbers')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('sip_trunk_id', '=', trunkId)
      .orderBy('number')
      .execute();
  },

  list(ex: Executor, workspaceId: string, page: PageParams, filter: { projectId?: string }) {
    let base = ex.selectFrom('phone_numbers').where('workspace_id', '=', workspaceId);
    if (filter.projectId !== undefined) base = base.where('project_id', '=', filter.projectId);
    return paginate(base, page, (qb) => qb.selectAll());
  },

  async insert(ex: Executor, row: PhoneNumberTable): Promise<void> {
    await ex.insertInto('phone_numbers').values(row).execute();
  },

  async update(ex: Executor, row: PhoneNumberTable): Promise<void> {
    await ex
      .updateTable('phone_numbers')
      .set({
        label: row.label,
        project_id: row.project_id,
        dispatch_rules: row.dispatch_rules,
        updated_at: row.updated_at,
      })
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
  },

  async delete(ex: Executor, workspaceId: string, id: string): Promise<void> {
    await ex
      .deleteFrom('phone_numbers')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .execute();
  },

  async projectExists(ex: Executor, workspaceId: string, projectId: string): Promise<boolean> {
    const row = await ex
      .selectFrom('projects')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', projectId)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Which of the ids are workflows of the workspace. */
  async existingWorkflows(ex: Executor, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await ex
      .selectFrom('workflows')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  },
};
