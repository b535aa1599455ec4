// SQL for projects, always scoped by workspace.
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryFirst } from '../../store/prepared.js';
import type { ProjectTable } from '../../store/schema.js';

// GET /projects/{id} and every route that checks a project first: kept prepared.
const PROJECT_BY_ID = preparedQuery<ProjectTable>(
  'project_by_id',
  'select id, workspace_id, name, description, created_at, updated_at from projects where workspace_id = $1 and id = $2',
);

type LiveTable = 'agents' | 'workflows' | 'phone_numbers' | 'webhook_endpoints' | 'sessions' | 'calls';

export const projectsRepo = {
  find(ex: Executor, workspaceId: string, id: string): Promise<ProjectTable | undefined> {
    return Promise.resolve(queryFirst(ex, PROJECT_BY_ID, [workspaceId, id]));
  },

  list(ex: Executor, workspaceId: string, page: PageParams) {
    return paginate(ex.selectFrom('projects').where('workspace_id', '=', workspaceId), page, (qb) =>
      qb.selectAll(),
    );
  },

  async insert(ex: Executor, row: ProjectTable): Promise<void> {
    await ex.insertInto('projects').values(row).execute();
  },

  async update(ex: Executor, row: ProjectTable): Promise<void> {
    await ex
      .updateTable('projects')
      .set({ name: row.name, description: row.description, updated_at: row.updated_at })
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
  },

  async delete(ex: Executor, workspaceId: string, id: string): Promise<void> {
    await ex.deleteFrom('projects').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
  },

  /** Live resources still in a project, by kind (what blocks its deletion). */
  async liveResources(ex: Executor, workspaceId: string, projectId: string): Promise<Record<string, number>> {
    const count = async (
      table: LiveTable,
      extra?: (qb: ReturnType<typeof base>) => ReturnType<typeof base>,
    ) => {
      let qb = base(table);
      if (extra) qb = extra(qb);
      const r = await qb.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
      return Number((r as { n: number | string } | undefined)?.n ?? 0);
    };
    const base = (table: LiveTable) =>
      ex.selectFrom(table).where('workspace_id', '=', workspaceId).where('project_id', '=', projectId);
    return {
      agents: await count('agents'),
      workflows: await count('workflows'),
      'phone numbers': await count('phone_numbers'),
      'webhook endpoints': await count('webhook_endpoints'),
      'active sessions': await count('sessions', (qb) => qb.where('status', 'in', ['pending', 'active'])),
      'calls in progress': await count('calls', (qb) =>
        qb.where('status', 'in', ['queued', 'ringing', 'in_progress']),
      ),
    };
  },
};
