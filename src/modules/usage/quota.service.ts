// Plan quotas: each workspace may cap voice minutes, sessions and calls per calendar month (UTC);
// null means unlimited. A session or call is admitted inside the transaction that creates it:
// consumeQuota checks the allowances against this month's usage_events and records the new unit
// in the same transaction, so the count and the record cannot drift apart.
//
// Two concurrent creates must not both take the last unit. PostgreSQL (read committed) gets a
// transaction-scoped advisory lock per workspace before counting, so the second waits for the
// first to commit and then sees its usage row. SQLite transactions start with BEGIN IMMEDIATE
// (src/store/database.ts) and are therefore already serialized.
import { isoSeconds } from '../../shared/clock.js';
import { startOfNextUtcMonth, startOfUtcMonth } from '../../shared/calendar-dates.js';
import { NotFoundError, QuotaExceededError } from '../../shared/errors.js';
import { toDbTime, type Executor } from '../../store/database.js';
import type { ServiceDeps } from '../context.js';
import { workspacesRepo } from '../workspaces/workspaces.repo.js';
import { recordUsage } from './usage.service.js';
import { usageRepo } from './usage.repo.js';

export type QuotaKind = 'sessions' | 'calls';

interface Allowance {
  metric: 'sessions' | 'calls' | 'voice_minutes';
  limit: number;
  /** How the allowance reads in the 402 message: singular, plural. */
  unit: [string, string];
}

export interface QuotaPeriod {
  start: number;
  /** First instant of the next month: when the allowances reset. */
  resetsAt: number;
}

export function quotaPeriod(nowMs: number): QuotaPeriod {
  return { start: startOfUtcMonth(nowMs), resetsAt: startOfNextUtcMonth(nowMs) };
}

function formatAmount(metric: Allowance['metric'], n: number): string {
  return metric === 'voice_minutes' ? String(Math.round(n * 100) / 100) : String(n);
}

async function allowancesFor(ex: Executor, workspaceId: string, kind: QuotaKind): Promise<Allowance[]> {
  const ws = await workspacesRepo.plan(ex, workspaceId);
  if (!ws) throw new NotFoundError('Workspace');
  const out: Allowance[] = [];
  if (kind === 'sessions' && ws.plan_sessions !== null) {
    out.push({ metric: 'sessions', limit: Number(ws.plan_sessions), unit: ['session', 'sessions'] });
  }
  if (kind === 'calls') {
    if (ws.plan_calls !== null)
      out.push({ metric: 'calls', limit: Number(ws.plan_calls), unit: ['call', 'calls'] });
    // Minutes are recorded when a call ends, so a call is refused once the minutes are used up,
    // not when the call about to start would go over.
    if (ws.plan_voice_minutes !== null) {
      out.push({
        metric: 'voice_minutes',
        limit: Number(ws.plan_voice_minutes),
        unit: ['voice minute', 'voice minutes'],
      });
    }
  }
  return out;
}

/**
 * Throws QuotaExceededError (402, errors.quota) when the workspace has used up an allowance that
 * `kind` needs this month. Call it inside the creating transaction; on PostgreSQL it holds a
 * per-workspace lock until that transaction ends.
 */
export async function assertQuota(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'dialect'>,
  workspaceId: string,
  kind: QuotaKind,
): Promise<void> {
  const allowances = await allowancesFor(trx, workspaceId, kind);
  if (allowances.length === 0) return;
  if (deps.dialect === 'postgres') await usageRepo.lockQuota(trx, workspaceId);
  const period = quotaPeriod(deps.clock.now());
  const range = { from: toDbTime(period.start), to: toDbTime(period.resetsAt) };
  for (const a of allowances) {
    const used = await usageRepo.total(trx, workspaceId, a.metric, range);
    if (used >= a.limit) {
      throw new QuotaExceededError(
        `The plan allows ${formatAmount(a.metric, a.limit)} ${a.unit[a.limit === 1 ? 0 : 1]} per month; ` +
          `${formatAmount(a.metric, used)} used this period. It resets at ${isoSeconds(period.resetsAt)}.`,
      );
    }
  }
}

/** assertQuota, then records the one session or call being created (usage metric of that name). */
export async function consumeQuota(
  trx: Executor,
  deps: Pick<ServiceDeps, 'clock' | 'dialect'>,
  input: { workspaceId: string; projectId: string | null; kind: QuotaKind },
): Promise<void> {
  await assertQuota(trx, deps, input.workspaceId, input.kind);
  await recordUsage(trx, {
    workspaceId: input.workspaceId,
    projectId: input.projectId,
    metric: input.kind,
    provider: null,
    quantity: 1,
    at: deps.clock.now(),
  });
}
