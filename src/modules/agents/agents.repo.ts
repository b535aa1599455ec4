// SQL for agents, always scoped by workspace; and the workflows whose graphs may name an agent
// (the LIKE narrows on the id's text, the caller's parse of the graphs decides).
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import type { AgentTable } from '../../store/schema.js';

export const agentsRepo = {
  find(ex: Executor, workspaceId: string, id: string): Promise<AgentTable | undefined> {
    return ex
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  list(ex: Executor, workspaceId: string, filter: { project_id?: string }, page: PageParams) {
    let base = ex.selectFrom('agents').where('workspace_id', '=', workspaceId);
    if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
    return paginate(base, page, (qb) => qb.selectAll());
  },

  async insert(ex: Executor, row: AgentTable): Promise<void> {
    await ex.insertInto('agents').values(row).execute();
  },

  async update(
    ex: Executor,
    workspaceId: string,
    id: string,
    changes: Omit<AgentTable, 'id' | 'workspace_id' | 'project_id' | 'created_at'>,
  ): Promise<void> {
    await ex
      .updateTable('agents')
      .set(changes)
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .execute();
  },

  async delete(ex: Executor, workspaceId: string, id: string): Promise<void> {
    await ex.deleteFrom('agents').where('id', '=', id).where('workspace_id', '=', workspaceId).execute();
  },

  /** Name, draft graph and published graph of the workflows whose text mentions the agent id. */
  workflowsMentioning(ex: Executor, workspaceId: string, agentId: string) {
    return ex
      .selectFrom('workflows')
      .leftJoin('workflow_versions', (j) =>
        j
          .onRef('workflow_versions.workflow_id', '=', 'workflows.id')
          .onRef('workflow_versions.version', '=', 'workflows.published_version'),
      )
      .select(['workflows.name', 'workflows.graph as draft', 'workflow_versions.graph as published'])
      .where('workflows.workspace_id', '=', workspaceId)
      .where((eb) =>
        eb.or([
          eb('workflows.graph', 'like', `%${agentId}%`),
          eb('workflow_versions.graph', 'like', `%${agentId}%`),
        ]),
      )
      .execute();
  },
};
