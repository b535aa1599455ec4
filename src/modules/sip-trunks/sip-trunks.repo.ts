// SQL for SIP trunks, always scoped by workspace.
import type { PageParams } from '../../shared/paging.js';
import type { Dialect, Executor } from '../../store/database.js';
import { paginate } from '../../store/paginate.js';
import type { SipTrunkTable } from '../../store/schema.js';

export const sipTrunksRepo = {
  /** `lock` takes a row lock on PostgreSQL so a delete and a number joining the trunk serialize. */
  find(ex: Executor, workspaceId: string, id: string, lock?: Dialect): Promise<SipTrunkTable | undefined> {
    let qb = ex
      .selectFrom('sip_trunks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id);
    if (lock === 'postgres') qb = qb.forUpdate();
    return qb.executeTakeFirst();
  },

  list(ex: Executor, workspaceId: string, page: PageParams) {
    return paginate(ex.selectFrom('sip_trunks').where('workspace_id', '=', workspaceId), page, (qb) =>
      qb.selectAll(),
    );
  },

  /** The trunk of a registered number, by the number's id (call ids lead here, never an API id). */
  ofNumber(ex: Executor, numberId: string | null): Promise<SipTrunkTable | undefined> {
    if (numberId === null) return Promise.resolve(undefined);
    return ex
      .selectFrom('phone_numbers')
      .innerJoin('sip_trunks', 'sip_trunks.id', 'phone_numbers.sip_trunk_id')
      .selectAll('sip_trunks')
      .where('phone_numbers.id', '=', numberId)
      .executeTakeFirst();
  },

  /** Every trunk of the workspace (inbound admission checks sources against them). */
  all(ex: Executor, workspaceId: string): Promise<SipTrunkTable[]> {
    return ex.selectFrom('sip_trunks').selectAll().where('workspace_id', '=', workspaceId).execute();
  },

  /** A trunk by id alone: a number's trunk, found through the number the workspace scoped. */
  load(ex: Executor, id: string): Promise<SipTrunkTable> {
    return ex.selectFrom('sip_trunks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  },

  async sipLabel(ex: Executor, workspaceId: string): Promise<string> {
    const row = await ex
      .selectFrom('workspaces')
      .select('sip_label')
      .where('id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return row.sip_label;
  },

  async insert(ex: Executor, row: SipTrunkTable): Promise<void> {
    await ex.insertInto('sip_trunks').values(row).execute();
  },

  /**
   * The customer's fields; the SIP node's findings (registration, health) only when `reset` says
   * the change made them stale, so an update never writes back what it read before the node's write.
   */
  async update(
    ex: Executor,
    row: SipTrunkTable,
    reset: { registration: boolean; health: boolean } = { registration: false, health: false },
  ): Promise<void> {
    await ex
      .updateTable('sip_trunks')
      .set({
        ...(reset.registration
          ? {
              registration_status: row.registration_status,
              registration_error: row.registration_error,
              registered_until: row.registered_until,
            }
          : {}),
        ...(reset.health ? { health: row.health } : {}),
        register: row.register,
        registrar_uri: row.registrar_uri,
        health_check: row.health_check,
        name: row.name,
        termination_uri: row.termination_uri,
        auth_username: row.auth_username,
        auth_password_enc: row.auth_password_enc,
        transport: row.transport,
        allowed_ips: row.allowed_ips,
        updated_at: row.updated_at,
      })
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
  },

  async delete(ex: Executor, workspaceId: string, id: string): Promise<void> {
    await ex.deleteFrom('sip_trunks').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
  },

  /**
   * Every trunk with registration or health checks on, across workspaces: the SIP node's trunk
   * manager keeps one binding or pinger per row (it acts for the service, not for a caller).
   */
  watched(ex: Executor): Promise<SipTrunkTable[]> {
    return ex
      .selectFrom('sip_trunks')
      .selectAll()
      .where((eb) => eb.or([eb('register', '=', 1), eb('health_check', '=', 1)]))
      .orderBy('id')
      .execute();
  },

  /** A trunk with registration on, by id alone: the SIP node found its id in our own Contact. */
  registered(ex: Executor, id: string): Promise<SipTrunkTable | undefined> {
    return ex
      .selectFrom('sip_trunks')
      .selectAll()
      .where('id', '=', id)
      .where('register', '=', 1)
      .executeTakeFirst();
  },

  /** The SIP node's finding about a binding; skipped when the trunk has turned registration off. */
  async setRegistration(
    ex: Executor,
    id: string,
    r: { status: string; error: string | null; until: string | null },
  ): Promise<void> {
    await ex
      .updateTable('sip_trunks')
      .set({ registration_status: r.status, registration_error: r.error, registered_until: r.until })
      .where('id', '=', id)
      .where('register', '=', 1)
      .execute();
  },

  /** The SIP node's finding about the termination host; skipped when health checks are off. */
  async setHealth(ex: Executor, id: string, health: string): Promise<void> {
    await ex
      .updateTable('sip_trunks')
      .set({ health })
      .where('id', '=', id)
      .where('health_check', '=', 1)
      .execute();
  },

  /** E.164 numbers carried by the trunk (what blocks its deletion). */
  async numbersOn(ex: Executor, workspaceId: string, trunkId: string): Promise<string[]> {
    const rows = await ex
      .selectFrom('phone_numbers')
      .select('number')
      .where('workspace_id', '=', workspaceId)
      .where('sip_trunk_id', '=', trunkId)
      .orderBy('number')
      .execute();
    return rows.map((r) => r.number);
  },
};
