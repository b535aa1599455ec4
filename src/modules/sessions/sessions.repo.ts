// SQL for sessions. Reads for the API are scoped by workspace; the session host, the call records
// and the sweeps address a session by its id (ids are unique across workspaces).
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryFirst } from '../../store/prepared.js';
import type { SessionTable } from '../../store/schema.js';
import { LIVE_CALL_STATUSES } from '../calls/calls.schema.js';

// A session's row by id: the call records read it at every answer and end, so kept prepared.
const SESSION_BY_ID = preparedQuery<SessionTable>('session_by_id', 'select * from sessions where id = $1');

export const sessionsRepo = {
  list(
    ex: Executor,
    workspaceId: string,
    filter: { project_id?: string; channel?: string; status?: string },
    page: PageParams,
  ) {
    let base = ex.selectFrom('sessions').where('workspace_id', '=', workspaceId);
    if (filter.project_id) base = base.where('project_id', '=', filter.project_id);
    if (filter.channel) base = base.where('channel', '=', filter.channel);
    if (filter.status) base = base.where('status', '=', filter.status);
    return paginate(base, page, (qb) => qb.selectAll());
  },

  findInWorkspace(ex: Executor, workspaceId: string, id: string): Promise<SessionTable | undefined> {
    return ex
      .selectFrom('sessions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  find(ex: Executor, id: string): Promise<SessionTable | undefined> {
    return Promise.resolve(queryFirst(ex, SESSION_BY_ID, [id]));
  },

  async load(ex: Executor, id: string): Promise<SessionTable> {
    const row = await queryFirst(ex, SESSION_BY_ID, [id]);
    if (!row) throw new Error(`session ${id} not found`);
    return row;
  },

  async insert(ex: Executor, row: SessionTable): Promise<void> {
    await ex.insertInto('sessions').values(row).execute();
  },

  /** → ended, unless it had ended already; false then. */
  async end(ex: Executor, id: string, reason: string, at: string): Promise<boolean> {
    const r = await ex
      .updateTable('sessions')
      .set({ status: 'ended', end_reason: reason, ended_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', '!=', 'ended')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  /** pending → active; false when it was not pending. */
  async activate(ex: Executor, id: string, at: string): Promise<boolean> {
    const r = await ex
      .updateTable('sessions')
      .set({ status: 'active', started_at: at, updated_at: at })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  async setStartedAt(ex: Executor, id: string, at: string): Promise<void> {
    await ex.updateTable('sessions').set({ started_at: at }).where('id', '=', id).execute();
  },

  /** Web sessions minted at or before `cutoff` and never joined (at most `limit`). */
  unjoinedWebSince(ex: Executor, cutoff: string, limit: number): Promise<SessionTable[]> {
    return ex
      .selectFrom('sessions')
      .selectAll()
      .where('status', '=', 'pending')
      .where('channel', '=', 'web')
      .where('created_at', '<=', cutoff)
      .limit(limit)
      .execute();
  },

  /** Phone sessions still open whose call is over or gone (their ending was lost). */
  orphanPhoneSessions(ex: Executor): Promise<SessionTable[]> {
    return ex
      .selectFrom('sessions')
      .leftJoin('calls', 'calls.id', 'sessions.call_id')
      .selectAll('sessions')
      .where('sessions.channel', '=', 'phone')
      .where('sessions.status', '!=', 'ended')
      .where((eb) =>
        eb.or([eb('calls.id', 'is', null), eb('calls.status', 'not in', [...LIVE_CALL_STATUSES])]),
      )
      .execute();
  },
};
