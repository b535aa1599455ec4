// Usage: what a workspace consumed between two UTC dates (inclusive), as totals per metric and,
// on request, split by day, project or provider. recordUsage is the one way quantities get in:
// the engine (tokens, speech), the call controller (voice minutes) and the quota (calls, sessions).
import {
  addDays,
  daysInclusive,
  formatCalendarDate,
  parseCalendarDate,
  startOfUtcDay,
  startOfUtcMonth,
} from '../../shared/calendar-dates.js';
import { FieldErrorBag, ValidationError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { toDbTime, type Executor } from '../../store/database.js';
import type { Actor, ServiceDeps } from '../context.js';
import { emptyMetrics, isUsageMetric, presentMetrics, type UsageMetric } from './usage-metrics.js';
import { usageRepo, type UsageSumRow } from './usage.repo.js';
import type { Usage, UsageGroup, UsageQuery } from './usage.schema.js';

/** Longest range one request may ask for, in days (a leap year). */
export const MAX_USAGE_SPAN_DAYS = 366;

export interface UsageRecord {
  workspaceId: string;
  projectId: string | null;
  metric: UsageMetric;
  provider: string | null;
  /** In the metric's unit (minutes for voice_minutes, seconds for stt_seconds, else a count). */
  quantity: number;
  /** When it was consumed, epoch ms (the clock's now()). */
  at: number;
}

/** Records one metered quantity; run it inside the transaction that did the work. Zero is skipped. */
export async function recordUsage(ex: Executor, record: UsageRecord): Promise<void> {
  if (!isUsageMetric(record.metric)) throw new Error(`unknown usage metric ${String(record.metric)}`);
  if (!Number.isFinite(record.quantity) || record.quantity < 0) {
    throw new Error(`usage quantity must be a finite number >= 0, got ${record.quantity}`);
  }
  if (record.quantity === 0) return;
  await usageRepo.insert(ex, {
    id: newId(),
    workspace_id: record.workspaceId,
    project_id: record.projectId,
    metric: record.metric,
    provider: record.provider,
    quantity: record.quantity,
    occurred_at: toDbTime(record.at),
  });
}

/**
 * The requested dates as midnights: `to` defaults to today (UTC), `from` to the first day of
 * `to`'s month, so a bare request is "this month so far" and `?to=2026-03-31` is all of March.
 */
export function resolveUsageRange(query: UsageQuery, nowMs: number): { from: number; to: number } {
  const bag = new FieldErrorBag();
  const to = query.to === undefined ? startOfUtcDay(nowMs) : parseCalendarDate(query.to);
  if (to === null) bag.add('to', 'must be a real date of the form YYYY-MM-DD');
  let from: number | null = null;
  if (query.from !== undefined) {
    from = parseCalendarDate(query.from);
    if (from === null) bag.add('from', 'must be a real date of the form YYYY-MM-DD');
  } else if (to !== null) {
    from = startOfUtcMonth(to);
  }
  bag.throwIfAny();
  if (from! > to!) throw ValidationError.field('from', 'must not be after to');
  if (daysInclusive(from!, to!) > MAX_USAGE_SPAN_DAYS) {
    throw ValidationError.field('to', `must be at most ${MAX_USAGE_SPAN_DAYS} days after from (inclusive)`);
  }
  return { from: from!, to: to! };
}

function groupKeyName(groupBy: 'day' | 'project' | 'provider'): 'day' | 'project_id' | 'provider' {
  return groupBy === 'project' ? 'project_id' : groupBy;
}

/** Folds (key, metric, total) rows into one metrics object per key. */
function foldGroups(rows: UsageSumRow[]): Map<string | null, Record<string, number>> {
  const byKey = new Map<string | null, Record<string, number>>();
  for (const r of rows) {
    const sums = byKey.get(r.key) ?? {};
    sums[r.metric] = (sums[r.metric] ?? 0) + r.total;
    byKey.set(r.key, sums);
  }
  return byKey;
}

/** Keys in a stable order: ascending, untagged (null) last. */
function byKeyThenNull(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

export class UsageService {
  constructor(private readonly deps: ServiceDeps) {}

  async report(actor: Actor, query: UsageQuery): Promise<Usage> {
    const { from, to } = resolveUsageRange(query, this.deps.clock.now());
    const range = { from: toDbTime(from), to: toDbTime(addDays(to, 1)) };
    const groupBy = query.group_by ?? 'metric';
    const rows = await usageRepo.sums(this.deps.db, actor.workspaceId, range, groupBy);

    const totals: Record<string, number> = {};
    for (const r of rows) totals[r.metric] = (totals[r.metric] ?? 0) + r.total;
    const base = { from: formatCalendarDate(from), to: formatCalendarDate(to) };
    if (groupBy === 'metric') return { ...base, metrics: presentMetrics(totals) };

    const name = groupKeyName(groupBy);
    const folded = foldGroups(rows);
    let groups: UsageGroup[];
    if (groupBy === 'day') {
      // Every day of the range appears, zeros included, so a chart needs no gap filling.
      groups = [];
      for (let d = from; d <= to; d = addDays(d, 1)) {
        const day = formatCalendarDate(d);
        const sums = folded.get(day);
        groups.push({ day, metrics: sums ? presentMetrics(sums) : emptyMetrics() });
      }
    } else {
      groups = [...folded.keys()]
        .sort(byKeyThenNull)
        .map((key) => ({ [name]: key, metrics: presentMetrics(folded.get(key)!) }));
    }
    return { ...base, group_by: groupBy, metrics: presentMetrics(totals), groups };
  }
}
