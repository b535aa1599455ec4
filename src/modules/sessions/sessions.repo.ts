// SQL for sessions. Reads for the API are scoped by workspace; the session host, the call records
// and the sweeps address a session by its id (ids are unique across workspaces).
import type { PageParams } from '../../shared/paging.js';
import type { Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import { preparedQuery, queryExecute, queryFirst, queryRows } from '../../store/prepared.js';
import type { SessionTable } from '../../store/schema.js';
import { LIVE_CALL_STATUSES } from '../calls/calls.schema.js';

// A session's row by id: the call records read it at every answer and end, so kept prepared.
const SESSION_BY_ID = preparedQuery<SessionTable>('session_by_id', 'select * from sessions where id = $1');

// Every call inserts, activates and ends a session: those writes are kept prepared too, and the
// two transitions hand the row back (`returning *`) instead of reading it again.
const SESSION_COLUMNS = [
  'id',
  'workspace_id',
  'project_id',
  'workflow_id',
  'workflow_version',
  'channel',
  'status',
  'variables',
  'metadata',
  'call_id',
  'end_reason',
  'started_at',
  'ended_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof SessionTable)[];
const INSERT_SESSION = preparedQuery<never>(
  'session_insert',
  `insert into sessions (${SESSION_COLUMNS.join(', ')})
   values (${SESSION_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
);
const ACTIVATE = preparedQuery<SessionTable>(
  'session_activate',
  `update sessions set status = 'active', started_at = $2, updated_at = $2
   where id = $1 and status = 'pending' returning *`,
);
const END = preparedQuery<SessionTable>(
  'session_end',
  `update sessions set status = 'ended', end_reason = $2, ended_at = $3, updated_at = $3
   where id = $1 and status != 'ended' returning *`,
);
const END_OF_CALL = preparedQuery<SessionTable>(
  'session_end_of_call',
  `update sessions set status = 'ended', end_reason = $3, ended_at = $4, updated_at = $4
   where id = $1 and call_id = $2 and status != 'ended' returning *`,
);

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
    await queryExecute(
      ex,
      INSERT_SESSION,
      SESSION_COLUMNS.map((c) => row[c]),
    );
  },

  /** → ended, unless it had ended already; false then. */
  async end(ex: Executor, id: string, reason: string, at: string): Promise<boolean> {
    return (await this.endReturning(ex, id, reason, at)) !== undefined;
  },

  /** end(), handing back the ended row; undefined when it had ended already. */
  async endReturning(
    ex: Executor,
    id: string,
    reason: string,
    at: string,
  ): Promise<SessionTable | undefined> {
    return (await queryRows(ex, END, [id, reason, at]))[0];
  },

  /** endReturning() for the session of call `callId` only (not a web session that dialled the call). */
  async endOfCall(
    ex: Executor,
    id: string,
    callId: string,
    reason: string,
    at: string,
  ): Promise<SessionTable | undefined> {
    return (await queryRows(ex, END_OF_CALL, [id, callId, reason, at]))[0];
  },

  /** pending → active; false when it was not pending. */
  async activate(ex: Executor, id: string, at: string): Promise<boolean> {
    return (await this.activateReturning(ex, id, at)) !== undefined;
  },

  /** activate(), handing back the active row; undefined when it was not pending. */
  async activateReturning(ex: Executor, id: string, at: string): Promise<SessionTable | undefined> {
    return (await queryRows(ex, ACTIVATE, [id, at]))[0];
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
