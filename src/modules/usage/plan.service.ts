// The workspace's plan as the dashboard shows it (GET /plan, beyond the spec): each monthly
// allowance the operator set (`switchboard workspace plan`), what this period used, and what is
// left. Read-only: the plan is the operator's to change, not an API key's.
import { Type, type Static } from '@sinclair/typebox';
import { isoSeconds } from '../../shared/clock.js';
import { NotFoundError } from '../../shared/errors.js';
import { toDbTime } from '../../store/database.js';
import type { Actor, ServiceDeps } from '../context.js';
import { quotaPeriod } from './quota.service.js';
import { usageRepo } from './usage.repo.js';
import { workspacesRepo } from '../workspaces/workspaces.repo.js';

const Allowance = Type.Object({
  limit: Type.Union([Type.Number(), Type.Null()], {
    description: 'Per calendar month (UTC); null: unlimited',
  }),
  used: Type.Number({ description: 'Used since the period started' }),
  remaining: Type.Union([Type.Number(), Type.Null()], {
    description: 'limit - used, never below 0; null: unlimited',
  }),
});

export const Plan = Type.Object(
  {
    period_start: Type.String({ description: 'UTC ISO 8601: the first instant of this month' }),
    resets_at: Type.String({ description: 'UTC ISO 8601: when the allowances reset' }),
    allowances: Type.Object({ voice_minutes: Allowance, sessions: Allowance, calls: Allowance }),
  },
  { title: 'Plan' },
);
export type Plan = Static<typeof Plan>;

const round2 = (n: number) => Math.round(n * 100) / 100;

export async function readPlan(deps: Pick<ServiceDeps, 'db' | 'clock'>, actor: Actor): Promise<Plan> {
  const ws = await workspacesRepo.plan(deps.db, actor.workspaceId);
  if (!ws) throw new NotFoundError('Workspace');
  const period = quotaPeriod(deps.clock.now());
  const range = { from: toDbTime(period.start), to: toDbTime(period.resetsAt) };
  const allowance = async (metric: 'voice_minutes' | 'sessions' | 'calls', limit: number | null) => {
    const raw = await usageRepo.total(deps.db, actor.workspaceId, metric, range);
    const used = metric === 'voice_minutes' ? round2(raw) : raw;
    const max = limit === null ? null : Number(limit);
    return { limit: max, used, remaining: max === null ? null : Math.max(0, round2(max - used)) };
  };
  return {
    period_start: isoSeconds(period.start),
    resets_at: isoSeconds(period.resetsAt),
    allowances: {
      voice_minutes: await allowance('voice_minutes', ws.plan_voice_minutes),
      sessions: await allowance('sessions', ws.plan_sessions),
      calls: await allowance('calls', ws.plan_calls),
    },
  };
}
