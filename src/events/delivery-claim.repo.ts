// SQL for claiming from the delivery table, the worker's durable job queue: due deliveries are
// taken under a lease (next_attempt_at moves to the lease's expiry, so a worker that dies holding
// rows releases them by the clock alone), and claimed rows a worker will not send are handed back.
// Recording what happened to a claim is delivery-record.ts; pruning the log, delivery-retention.ts;
// the SQL of both is deliveries.repo.ts.
import { toDbTime, type Db, type Dialect } from '../store/database.js';
import { preparedQuery, queryRows } from '../store/prepared.js';

export interface ClaimedDelivery {
  id: string;
  workspaceId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attemptCount: number;
  roundStart: number;
  body: string;
  /** Null when the endpoint was deleted since the delivery was written. */
  endpoint: { url: string; secretEnc: string; status: string } | null;
  /** When this claim's lease runs out (ms): past it, another worker may claim the row. */
  leaseExpiresAt: number;
}

export interface ClaimOptions {
  owner: string;
  now: number;
  leaseMs: number;
  limit: number;
  /**
   * Per-endpoint limits: at most `perEndpoint` rows of any one endpoint in this claim, fewer for
   * the endpoints listed in `remaining` (what the claimer may still take for them; 0 or less skips
   * the endpoint entirely). Without it, rows are taken in due order whatever their endpoint.
   */
  endpointLimits?: { perEndpoint: number; remaining: ReadonlyMap<string, number> };
}

interface ClaimRow {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt_count: number | string;
  round_start: number | string;
  body: string;
  url: string | null;
  secret_enc: string | null;
  endpoint_status: string | null;
}

// The claim, as hand-written SQL run as prepared statements (store/prepared.ts: synchronous on
// SQLite, named statements on PostgreSQL): this runs for every batch of deliveries, and building
// and compiling these statements through Kysely cost more than running them.
//
// SQLite: due pending rows in due order from the partial index (covering: no table reads), minus
// endpoints the claimer may take no more of; the per-endpoint pick is made in JS; then one UPDATE
// leases the picked rows, re-checking that each is still pending and due (a row another process
// leased in between is skipped), and one SELECT reads them with their event body and endpoint.
const DUE_SQLITE = preparedQuery<{ id: string; endpoint_id: string }>(
  'webhook_due',
  `select id, endpoint_id from webhook_deliveries
where status = 'pending' and next_attempt_at <= $1
  and endpoint_id not in (select value from json_each($2))
order by next_attempt_at limit $3`,
);

const LEASE_SQLITE = preparedQuery<{ id: string }>(
  'webhook_lease',
  `update webhook_deliveries set lease_owner = $1, next_attempt_at = $2
where id in (select value from json_each($3)) and status = 'pending' and next_attempt_at <= $4
returning id`,
);

const CLAIMED_SQLITE = preparedQuery<ClaimRow>(
  'webhook_claimed',
  `select d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count,
  d.round_start, e.body, ep.url, ep.secret_enc, ep.status as endpoint_status
from webhook_deliveries d
join webhook_events e on e.id = d.event_id
left join webhook_endpoints ep on ep.id = d.endpoint_id
where d.id in (select value from json_each($1))`,
);

// PostgreSQL: one round trip. The candidate rows are locked with SKIP LOCKED as they are read, so
// concurrent workers take disjoint rows without waiting on each other; candidates not picked are
// unlocked when the statement ends. The scan stops at `limit` rows here (not a multiple of it):
// every row it locks is one a concurrent claimer skips.
// The skip test is written `not ($4 @> array[endpoint_id])`, not `endpoint_id <> all($4)`: the
// server plans a prepared statement once for any parameters after a few runs, and with few
// distinct endpoints pending it estimated that `<> all` keeps almost no row, so it read and sorted
// every due row on each claim (one endpoint with a backlog: the whole backlog, per claim). The
// containment test is estimated at a fixed selectivity, so the scan walks the pending index in
// due order and stops at `limit`.
export const CLAIM_POSTGRES = preparedQuery<ClaimRow>(
  'webhook_claim',
  `with cand as (
  select id, endpoint_id, next_attempt_at from webhook_deliveries
  where status = 'pending' and next_attempt_at <= $3
    and not ($4::text[] @> array[endpoint_id])
  order by next_attempt_at limit $7
  for update skip locked
), ranked as (
  select c.id, c.next_attempt_at,
    row_number() over (partition by c.endpoint_id order by c.next_attempt_at) as rn,
    coalesce(($5::jsonb ->> c.endpoint_id)::int, $6) as allowed
  from cand c
), picked as (
  select id from ranked where rn <= allowed order by next_attempt_at limit $7
), claimed as (
  update webhook_deliveries d set lease_owner = $1, next_attempt_at = $2
  from picked where d.id = picked.id
  returning d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.round_start
)
select c.*, e.body, ep.url, ep.secret_enc, ep.status as endpoint_status
from claimed c
join webhook_events e on e.id = c.event_id
left join webhook_endpoints ep on ep.id = c.endpoint_id`,
);

/**
 * Claims up to `limit` due deliveries for `owner`. The claim moves next_attempt_at to the lease
 * expiry, so a worker that dies holding it releases it by the clock alone. PostgreSQL: row locks
 * with SKIP LOCKED, so concurrent workers take disjoint rows without waiting on each other. SQLite:
 * one UPDATE … RETURNING statement, atomic because SQLite serializes writers.
 */
export async function claimDue(db: Db, dialect: Dialect, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (o.limit <= 0) return [];
  const nowText = toDbTime(o.now);
  const leaseText = toDbTime(o.now + o.leaseMs);
  const skip: string[] = [];
  const partial: Record<string, number> = {};
  let perEndpoint = o.limit;
  if (o.endpointLimits) {
    perEndpoint = o.endpointLimits.perEndpoint;
    for (const [endpointId, left] of o.endpointLimits.remaining) {
      if (left <= 0) skip.push(endpointId);
      else if (left < perEndpoint) partial[endpointId] = left;
    }
  }
  let rows: ClaimRow[];
  if (dialect === 'postgres') {
    rows = await queryRows(db, CLAIM_POSTGRES, [
      o.owner,
      leaseText,
      nowText,
      skip,
      JSON.stringify(partial),
      perEndpoint,
      o.limit,
    ]);
  } else {
    // The three statements run back to back without yielding whenever the store answers
    // synchronously (no transaction open on it), so claimers in this process never interleave
    // between reading due rows and leasing them; other processes are kept out by the re-check.
    const then = <T, U>(v: T | Promise<T>, f: (t: T) => U | Promise<U>): U | Promise<U> =>
      v instanceof Promise ? v.then(f) : f(v);
    const pick = (due: Array<{ id: string; endpoint_id: string }>): string[] => {
      const picked: string[] = [];
      const taken = new Map<string, number>();
      for (const d of due) {
        const n = taken.get(d.endpoint_id) ?? 0;
        if (n >= (partial[d.endpoint_id] ?? perEndpoint)) continue;
        taken.set(d.endpoint_id, n + 1);
        picked.push(d.id);
        if (picked.length >= o.limit) break;
      }
      return picked;
    };
    rows = await then(
      queryRows(db, DUE_SQLITE, [nowText, JSON.stringify(skip), o.limit]),
      (due): ClaimRow[] | Promise<ClaimRow[]> => {
        const picked = pick(due);
        if (picked.length === 0) return [];
        return then(
          queryRows(db, LEASE_SQLITE, [o.owner, leaseText, JSON.stringify(picked), nowText]),
          (leased): ClaimRow[] | Promise<ClaimRow[]> =>
            leased.length === 0
              ? []
              : queryRows(db, CLAIMED_SQLITE, [JSON.stringify(leased.map((c) => c.id))]),
        );
      },
    );
  }
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    attemptCount: Number(r.attempt_count),
    roundStart: Number(r.round_start),
    body: r.body,
    endpoint:
      r.url !== null && r.secret_enc !== null && r.endpoint_status !== null
        ? { url: r.url, secretEnc: r.secret_enc, status: r.endpoint_status }
        : null,
    leaseExpiresAt: o.now + o.leaseMs,
  }));
}

/** Hands claimed, unsent deliveries back (due now) so another worker need not wait for the lease. */
export async function releaseClaims(db: Db, owner: string, ids: string[], now: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: null, next_attempt_at: toDbTime(now) })
      .where('id', 'in', ids.slice(i, i + 500))
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute();
  }
}
