// SQL for workflows and their frozen versions.
import type { Executor } from '../../store/database.js';
import type { WorkflowTable, WorkflowVersionTable } from '../../store/schema.js';

export const workflowsRepo = {
  find(ex: Executor, workspaceId: string, id: string): Promise<WorkflowTable | undefined> {
    return ex
      .selectFrom('workflows')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** A workflow by id in any workspace: for the operator's CLI (`chat`), never for the API. */
  findById(ex: Executor, id: string): Promise<WorkflowTable | undefined> {
    return ex.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst();
  },

  findVersion(ex: Executor, workflowId: string, version: number): Promise<WorkflowVersionTable | undefined> {
    return ex
      .selectFrom('workflow_versions')
      .selectAll()
      .where('workflow_id', '=', workflowId)
      .where('version', '=', version)
      .executeTakeFirst();
  },

  async maxVersion(ex: Executor, workflowId: string): Promise<number> {
    const r = await ex
      .selectFrom('workflow_versions')
      .select((eb) => eb.fn.max('version').as('v'))
      .where('workflow_id', '=', workflowId)
      .executeTakeFirst();
    return Number(r?.v ?? 0);
  },

  async agentIdsOfProject(ex: Executor, workspaceId: string, projectId: string): Promise<Set<string>> {
    const rows = await ex
      .selectFrom('agents')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('project_id', '=', projectId)
      .execute();
    return new Set(rows.map((r) => r.id));
  },
};
