// SQL the metrics read when Prometheus scrapes: the webhook queue, this node's live calls and the
// watched SIP trunks.
// Both reach only rows that are pending or live right now, through the indexes the worker and the
// restart sweep already use (webhook_deliveries_pending, calls_status).
import { sql } from 'kysely';
import type { Executor } from '../store/database.js';

const LIVE_CALL_STATUSES = ['queued', 'ringing', 'in_progress'];

export interface QueueState {
  depth: number;
  /** created_at of the oldest pending delivery; null when none is pending. */
  oldest: string | null;
}

export const metricsRepo = {
  async webhookQueue(ex: Executor): Promise<QueueState> {
    const row = await ex
      .selectFrom('webhook_deliveries')
      .select([sql<number | string>`count(*)`.as('depth'), sql<string | null>`min(created_at)`.as('oldest')])
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return { depth: Number(row?.depth ?? 0), oldest: row?.oldest ?? null };
  },

  /** The calls live on one node (SWITCHBOARD_NODE_ID), by direction and status. */
  async liveCalls(
    ex: Executor,
    nodeId: string,
  ): Promise<Array<{ direction: string; status: string; count: number }>> {
    const rows = await ex
      .selectFrom('calls')
      .select(['direction', 'status', sql<number | string>`count(*)`.as('count')])
      .where('status', 'in', LIVE_CALL_STATUSES)
      .where('node_id', '=', nodeId)
      .groupBy(['direction', 'status'])
      .execute();
    return rows.map((r) => ({ direction: r.direction, status: r.status, count: Number(r.count) }));
  },

  /** Trunks with registration or health checks on, and what the SIP nodes found. */
  watchedTrunks(ex: Executor): Promise<
    Array<{
      id: string;
      register: number;
      health_check: number;
      registration_status: string | null;
      health: string | null;
    }>
  > {
    return ex
      .selectFrom('sip_trunks')
      .select(['id', 'register', 'health_check', 'registration_status', 'health'])
      .where((eb) => eb.or([eb('register', '=', 1), eb('health_check', '=', 1)]))
      .execute();
  },
};
