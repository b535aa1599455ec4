// Usage: this workspace's consumption by day (chart), by project and by provider, and the plan's
// monthly allowances with what is left (GET /plan).
import { useMemo, useState } from 'react';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Usage } from '../../api/types';
import { DailyChart } from '../../components/DailyChart';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField, TextField } from '../../components/fields';
import { PageHeader, Section } from '../../components/PageHeader';

type Metric = keyof Usage['metrics'];
const METRICS: Array<{ value: Metric; label: string }> = [
  { value: 'voice_minutes', label: 'Voice minutes' },
  { value: 'calls', label: 'Calls' },
  { value: 'sessions', label: 'Sessions' },
  { value: 'llm_input_tokens', label: 'LLM input tokens' },
  { value: 'llm_output_tokens', label: 'LLM output tokens' },
  { value: 'stt_seconds', label: 'Speech-to-text seconds' },
  { value: 'tts_characters', label: 'Text-to-speech characters' },
];
const COLORS: Record<string, string> = {
  voice_minutes: '#4338ca',
  calls: '#0e7490',
  sessions: '#b45309',
  llm_input_tokens: '#7c3aed',
  llm_output_tokens: '#db2777',
  stt_seconds: '#15803d',
  tts_characters: '#b91c1c',
};

function monthStart(): string {
  const now = new Date();
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}-01`;
}
function today(): string {
  return new Date().toISOString().slice(0, 10);
}
const fmt = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 2 });

type Plan = Awaited<ReturnType<typeof loadPlan>>;
const loadPlan = async () => (await call(api.GET('/api/v1/plan'))).data;

function PlanCard({ plan }: { plan: Plan | undefined }) {
  if (!plan) return null;
  const p = plan;
  const rows: Array<[string, (typeof p.allowances)['calls']]> = [
    ['Voice minutes', p.allowances.voice_minutes],
    ['Sessions', p.allowances.sessions],
    ['Calls', p.allowances.calls],
  ];
  return (
    <Section title="Plan this month" id="plan">
      <p className="muted">
        Allowances reset {new Date(p.resets_at).toLocaleString()}. The operator sets them with switchboard
        workspace plan.
      </p>
      <div className="stats">
        {rows.map(([label, a]) => (
          <div className="stat" key={label}>
            <div className="stat-label">{label}</div>
            <div className="stat-value">
              {a.limit === null ? fmt(a.used) : `${fmt(a.remaining ?? 0)} left`}
            </div>
            <div className="stat-sub">
              {a.limit === null ? 'used · unlimited' : `${fmt(a.used)} of ${fmt(a.limit)} used`}
            </div>
            {a.limit !== null && (
              <div
                className="meter"
                role="meter"
                aria-label={`${label} used`}
                aria-valuemin={0}
                aria-valuemax={a.limit}
                aria-valuenow={Math.min(a.used, a.limit)}
              >
                <span style={{ width: `${Math.min(100, (a.used / Math.max(a.limit, 1e-9)) * 100)}%` }} />
              </div>
            )}
          </div>
        ))}
      </div>
    </Section>
  );
}

export function UsagePage() {
  const projects = useProjects();
  const [range, setRange] = useState({ from: monthStart(), to: today() });
  const load = (group_by: 'day' | 'project' | 'provider') => async () =>
    (
      await call(
        api.GET('/api/v1/usage', { params: { query: { from: range.from, to: range.to, group_by } } }),
      )
    ).data;
  const byDay = useLoad(load('day'), [range.from, range.to]);
  const byProject = useLoad(load('project'), [range.from, range.to]);
  const byProvider = useLoad(load('provider'), [range.from, range.to]);
  const plan = useLoad(loadPlan, []);
  // One banner for the page, however many of its reads failed: a key without the read scope
  // gets the same 403 from each, and saying it once is enough. Retry retries all that failed.
  const loads = [plan, byDay, byProject, byProvider];
  const failed = loads.filter((l) => l.error);
  const loading = loads.some((l) => l.loading && !l.data && !l.error);

  return (
    <>
      <PageHeader
        title="Usage"
        description="What this workspace used: voice minutes, calls, sessions, tokens and speech, by day, project and provider."
      />
      {failed.length > 0 && (
        <ErrorBanner error={failed[0]!.error!} onRetry={() => failed.forEach((l) => l.reload())} />
      )}
      {loading && failed.length === 0 && <Loading />}
      <PlanCard plan={plan.data} />
      <div className="toolbar">
        <TextField
          name="from"
          label="From"
          type="date"
          value={range.from}
          onChange={(from) => setRange({ ...range, from })}
          className="field-inline"
        />
        <TextField
          name="to"
          label="To"
          type="date"
          value={range.to}
          onChange={(to) => setRange({ ...range, to })}
          className="field-inline"
        />
      </div>
      {byDay.data && <DailyUsage usage={byDay.data} />}
      {(byProject.data || byProvider.data) && (
        <div className="grid-2">
          <Section title="By project" id="by-project">
            {byProject.data && (
              <GroupTable
                rows={(byProject.data.groups ?? []).map((g) => [
                  g.project_id ? projects.nameOf(g.project_id) : 'No project',
                  g.metrics,
                ])}
              />
            )}
          </Section>
          <Section title="By provider" id="by-provider">
            {byProvider.data && (
              <GroupTable
                rows={(byProvider.data.groups ?? []).map((g) => [g.provider ?? 'No provider', g.metrics])}
              />
            )}
          </Section>
        </div>
      )}
    </>
  );
}

/** The range's totals, and one metric by day: a chart, and the same figures as a table. */
function DailyUsage({ usage }: { usage: Usage }) {
  const [metric, setMetric] = useState<Metric>('calls');
  const days = useMemo(() => (usage.groups ?? []).map((g) => g.day!), [usage]);
  const series = useMemo(
    () => [
      {
        label: METRICS.find((m) => m.value === metric)!.label,
        values: (usage.groups ?? []).map((g) => g.metrics[metric]),
        color: COLORS[metric]!,
      },
    ],
    [usage, metric],
  );
  return (
    <>
      <div className="stats">
        {METRICS.map((m) => (
          <div className="stat" key={m.value}>
            <div className="stat-label">{m.label}</div>
            <div className="stat-value">{fmt(usage.metrics[m.value])}</div>
          </div>
        ))}
      </div>
      <Section
        title="By day"
        id="by-day"
        actions={
          <SelectField
            name="metric"
            label="Metric"
            value={metric}
            onChange={(v) => setMetric(v as Metric)}
            options={METRICS}
            className="field-inline"
          />
        }
      >
        <DailyChart days={days} series={series} title={`${series[0]!.label} per day`} />
        <details>
          <summary>Table</summary>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">
                  {series[0]!.label}
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d, i) => (
                <tr key={d}>
                  <td>{d}</td>
                  <td className="num">{fmt(series[0]!.values[i]!)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      </Section>
    </>
  );
}

function GroupTable({ rows }: { rows: Array<[string, Usage['metrics']]> }) {
  if (rows.length === 0) return <p className="muted">Nothing used in this range.</p>;
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Usage table">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" className="num">
              Minutes
            </th>
            <th scope="col" className="num">
              Calls
            </th>
            <th scope="col" className="num">
              Sessions
            </th>
            <th scope="col" className="num">
              Tokens
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, m]) => (
            <tr key={name}>
              <td>{name}</td>
              <td className="num">{fmt(m.voice_minutes)}</td>
              <td className="num">{fmt(m.calls)}</td>
              <td className="num">{fmt(m.sessions)}</td>
              <td className="num">{fmt(m.llm_input_tokens + m.llm_output_tokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
