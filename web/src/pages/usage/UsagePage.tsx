// Usage: the plan's monthly allowances with what is left (GET /plan), then this workspace's
// consumption in a date range: the totals, one metric per day (bars), by project and by provider
// (bars of that metric, and what each provider metered). Every chart has its numbers in a list or
// table too, and no table is wider than its card, on a phone either.
import { useMemo, useState } from 'react';
import { api, call } from '../../api/client';
import { useLoad } from '../../api/hooks';
import { useProjects } from '../../api/projects';
import type { Usage } from '../../api/types';
import { DailyChart } from '../../components/DailyChart';
import { ErrorBanner, Loading } from '../../components/ErrorBanner';
import { SelectField, TextField } from '../../components/fields';
import { PageHeader, Section } from '../../components/PageHeader';
import {
  METRICS,
  barsOf,
  daysUntil,
  fmt,
  metricColor,
  metricLabel,
  groupLines,
  presetRanges,
  type Bar,
  type GroupLine,
  type MetricName,
} from './usage-data';

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
        Allowances reset in {daysUntil(p.resets_at)} day{daysUntil(p.resets_at) === 1 ? '' : 's'} (
        {new Date(p.resets_at).toLocaleDateString(undefined, { month: 'long', day: 'numeric' })}). The
        operator sets them with <code>switchboard workspace plan</code>.
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
  const presets = useMemo(() => presetRanges(), []);
  const [range, setRange] = useState({ from: presets[0]!.from, to: presets[0]!.to });
  const [metric, setMetric] = useState<MetricName>('calls');
  const { byDay, byProject, byProvider } = useUsage(range);
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
      <UsageToolbar presets={presets} range={range} onRange={setRange} metric={metric} onMetric={setMetric} />
      {byDay.data && <DailyUsage usage={byDay.data} metric={metric} />}
      {(byProject.data || byProvider.data) && (
        <div className="grid-2">
          <Section title="By project" id="by-project">
            {byProject.data && (
              <GroupUsage
                groups={byProject.data.groups ?? []}
                metric={metric}
                nameOf={(g) => (g.project_id ? projects.nameOf(g.project_id) : 'No project')}
                noun="project"
              />
            )}
          </Section>
          <Section title="By provider" id="by-provider">
            {byProvider.data && (
              <GroupUsage
                groups={byProvider.data.groups ?? []}
                metric={metric}
                nameOf={(g) => g.provider ?? 'No provider'}
                noun="provider"
              />
            )}
          </Section>
        </div>
      )}
    </>
  );
}

interface Range {
  from: string;
  to: string;
}

/** The workspace's usage in the range, three ways: by day, by project and by provider. */
function useUsage(range: Range) {
  const load = (group_by: 'day' | 'project' | 'provider') => async () =>
    (
      await call(
        api.GET('/api/v1/usage', { params: { query: { from: range.from, to: range.to, group_by } } }),
      )
    ).data;
  const byDay = useLoad(load('day'), [range.from, range.to]);
  const byProject = useLoad(load('project'), [range.from, range.to]);
  const byProvider = useLoad(load('provider'), [range.from, range.to]);
  return { byDay, byProject, byProvider };
}

/** The range (two dates or a quick range) and the metric the charts show. */
function UsageToolbar({
  presets,
  range,
  onRange,
  metric,
  onMetric,
}: {
  presets: ReturnType<typeof presetRanges>;
  range: Range;
  onRange: (range: Range) => void;
  metric: MetricName;
  onMetric: (metric: MetricName) => void;
}) {
  return (
    <div className="toolbar usage-toolbar">
      <TextField
        name="from"
        label="From"
        type="date"
        value={range.from}
        onChange={(from) => onRange({ ...range, from })}
        className="field-inline"
      />
      <TextField
        name="to"
        label="To"
        type="date"
        value={range.to}
        onChange={(to) => onRange({ ...range, to })}
        className="field-inline"
      />
      <div className="btn-group usage-presets" role="group" aria-label="Quick ranges">
        {presets.map((p) => (
          <button
            key={p.label}
            type="button"
            className="btn btn-small"
            aria-pressed={p.from === range.from && p.to === range.to}
            onClick={() => onRange({ from: p.from, to: p.to })}
          >
            {p.label}
          </button>
        ))}
      </div>
      <SelectField
        name="metric"
        label="Chart"
        value={metric}
        onChange={(v) => onMetric(v as MetricName)}
        options={METRICS}
        className="field-inline"
      />
    </div>
  );
}

/** The range's totals, the chosen one marked, then that metric per day as bars and as a table. */
function DailyUsage({ usage, metric }: { usage: Usage; metric: MetricName }) {
  const label = metricLabel(metric);
  const days = useMemo(() => (usage.groups ?? []).map((g) => g.day!), [usage]);
  const series = useMemo(
    () => [{ label, values: (usage.groups ?? []).map((g) => g.metrics[metric]), color: metricColor(metric) }],
    [usage, metric, label],
  );
  return (
    <>
      <div className="stats">
        {METRICS.map((m) => (
          <div className={`stat ${m.value === metric ? 'stat-current' : ''}`} key={m.value}>
            <div className="stat-label">{m.label}</div>
            <div className="stat-value">{fmt(usage.metrics[m.value])}</div>
          </div>
        ))}
      </div>
      <Section title={`${label} per day`} id="by-day">
        <DailyChart days={days} series={series} title={`${label} per day, as bars`} />
        <details>
          <summary>Table</summary>
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">
                  {label}
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

type Groups = NonNullable<Usage['groups']>;

/** One metric as horizontal bars, the figure beside each (read out as "name: figure"). */
export function BarList({ bars, label, empty }: { bars: Bar[]; label: string; empty: string }) {
  if (bars.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="bar-list" aria-label={label}>
      {bars.map((b) => (
        <li key={b.label}>
          <span className="bar-label">{b.label}</span>
          <span className="bar-track" aria-hidden="true">
            <span className="bar-fill" style={{ width: `${Math.max(b.percent, 1)}%` }} />
          </span>
          <span className="bar-value num">
            <span className="sr-only">: </span>
            {fmt(b.value)}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** What each group used, one line per metric: three columns fit any width. */
function GroupLines({ lines, heading, label }: { lines: GroupLine[]; heading: string; label: string }) {
  return (
    <table className="table table-compact" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">{heading}</th>
          <th scope="col">Used</th>
          <th scope="col" className="num">
            Amount
          </th>
        </tr>
      </thead>
      {[...new Set(lines.map((l) => l.group))].map((group) => {
        const own = lines.filter((l) => l.group === group);
        return (
          <tbody key={group}>
            {own.map((l, i) => (
              <tr key={l.metric}>
                {i === 0 && (
                  <th scope="rowgroup" rowSpan={own.length}>
                    {group}
                  </th>
                )}
                <td>{l.label}</td>
                <td className="num">{fmt(l.value)}</td>
              </tr>
            ))}
          </tbody>
        );
      })}
    </table>
  );
}

/** One grouping: bars of the chosen metric, then everything each group used. */
function GroupUsage<G extends Groups[number]>({
  groups,
  metric,
  nameOf,
  noun,
}: {
  groups: G[];
  metric: MetricName;
  nameOf: (g: G) => string;
  noun: 'project' | 'provider';
}) {
  const lines = groupLines(groups, nameOf);
  if (lines.length === 0) return <p className="muted">Nothing used in this range.</p>;
  const label = metricLabel(metric);
  return (
    <>
      <BarList
        bars={barsOf(groups, metric, nameOf)}
        label={`${label} by ${noun}`}
        empty={`No ${noun} ${noun === 'provider' ? 'metered' : 'used any'} ${label.toLowerCase()} in this range.`}
      />
      <GroupLines
        lines={lines}
        heading={noun === 'provider' ? 'Provider' : 'Project'}
        label={noun === 'provider' ? 'What each provider metered' : 'What each project used'}
      />
    </>
  );
}
