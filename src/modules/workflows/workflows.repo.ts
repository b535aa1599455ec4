// SQL for workflows and their frozen versions.
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryFirst } from '../../store/prepared.js';
import type { WorkflowTable, WorkflowVersionTable } from '../../store/schema.js';

// Read by inbound admission for every call (the winning rule's workflow): kept prepared.
const WORKFLOW_BY_ID = preparedQuery<WorkflowTable>(
  'workflow_by_id',
  'select * from workflows where workspace_id = $1 and id = $2',
);

export const workflowsRepo = {
  list(ex: Executor, workspaceId: string, filter: { project_id?: string }, page: PageParams) {
    let base = ex.selectFrom('workflows').where('workspace_id', '=', workspaceId);
    if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
    return paginate(base, page, (qb) => qb.selectAll());
  },

  find(ex: Executor, workspaceId: string, id: string): Promise<WorkflowTable | undefined> {
    return Promise.resolve(queryFirst(ex, WORKFLOW_BY_ID, [workspaceId, id]));
  },

  /** A workflow by id in any workspace: for the operator's CLI (`chat`), never for the API. */
  findById(ex: Executor, id: string): Promise<WorkflowTable | undefined> {
    return ex.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst();
  },

  async insert(ex: Executor, row: WorkflowTable): Promise<void> {
    await ex.insertInto('workflows').values(row).execute();
  },

  async updateDraft(
    ex: Executor,
    workspaceId: string,
    id: string,
    changes: Pick<WorkflowTable, 'name' | 'graph' | 'updated_at'>,
  ): Promise<void> {
    await ex
      .updateTable('workflows')
      .set(changes)
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .execute();
  },

  /** Deletes the workflow and its versions; the caller runs both in one transaction. */
  async delete(ex: Executor, workspaceId: string, id: string): Promise<void> {
    await ex.deleteFrom('workflow_versions').where('workflow_id', '=', id).execute();
    await ex.deleteFrom('workflows').where('id', '=', id).where('workspace_id', '=', workspaceId).execute();
  },

  /** Freezes a version and marks it the workflow's published one; the caller's transaction holds both. */
  async insertVersion(ex: Executor, version: WorkflowVersionTable): Promise<void> {
    await ex.insertInto('workflow_versions').values(version).execute();
    await ex
      .updateTable('workflows')
      .set({ published_version: version.version, published_at: version.published_at })
      .where('id', '=', version.workflow_id)
      .execute();
  },

  listVersions(ex: Executor, workflowId: string, page: PageParams) {
    return paginate(
      ex.selectFrom('workflow_versions').where('workflow_id', '=', workflowId),
      page,
      (qb) => qb.select(['version', 'published_at', 'published_by', 'schema_version']),
      { created: 'version', id: 'version' },
    );
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
