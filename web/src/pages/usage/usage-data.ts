// The Usage page's figures, shaped from GET /usage groups: bars of one metric by project or
// provider, what each provider metered (a provider meters only some metrics: a trunk minutes, a
// speech vendor seconds or characters), what each project used, and date ranges for the quick picks.
import type { Usage } from '../../api/types';

/** Every metric the API meters, as GET /usage reports them. */
export type Metrics = Usage['metrics'];
export type MetricName = keyof Metrics;

/** The metrics in the page's order, with their labels, units and chart colours. */
export const METRICS: Array<{ value: MetricName; label: string; unit: string; color: string }> = [
  { value: 'voice_minutes', label: 'Voice minutes', unit: 'min', color: '#4338ca' },
  { value: 'calls', label: 'Calls', unit: 'calls', color: '#0e7490' },
  { value: 'sessions', label: 'Sessions', unit: 'sessions', color: '#b45309' },
  { value: 'llm_input_tokens', label: 'LLM input tokens', unit: 'tokens', color: '#7c3aed' },
  { value: 'llm_output_tokens', label: 'LLM output tokens', unit: 'tokens', color: '#db2777' },
  { value: 'stt_seconds', label: 'Speech-to-text seconds', unit: 's', color: '#15803d' },
  { value: 'tts_characters', label: 'Text-to-speech characters', unit: 'chars', color: '#b91c1c' },
];

const metricOf = (m: MetricName) => METRICS.find((x) => x.value === m)!;
export const metricLabel = (m: MetricName) => metricOf(m).label;
export const metricColor = (m: MetricName) => metricOf(m).color;

export const fmt = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 2 });

export interface Bar {
  label: string;
  value: number;
  /** Share of the largest bar, 0–100. */
  percent: number;
}

/** One metric across groups, largest first, groups without any left out. */
export function barsOf<G extends { metrics: Metrics }>(
  groups: G[],
  metric: MetricName,
  labelOf: (g: G) => string,
): Bar[] {
  const rows = groups
    .map((g) => ({ label: labelOf(g), value: g.metrics[metric] }))
    .filter((r) => r.value > 0)
    .sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
  const max = rows[0]?.value ?? 0;
  return rows.map((r) => ({ ...r, percent: max > 0 ? (r.value / max) * 100 : 0 }));
}

export interface GroupLine {
  group: string;
  metric: MetricName;
  label: string;
  value: number;
}

/**
 * What each group (a project, a provider) used: one line per group and metric it has a figure for,
 * in the groups' order. Long rather than wide, so the table fits a phone.
 */
export function groupLines<G extends { metrics: Metrics }>(
  groups: G[],
  nameOf: (g: G) => string,
): GroupLine[] {
  const lines: GroupLine[] = [];
  for (const g of groups) {
    const group = nameOf(g);
    for (const m of METRICS) {
      const value = g.metrics[m.value];
      if (value > 0) lines.push({ group, metric: m.value, label: m.label, value });
    }
  }
  return lines;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);

/** Quick ranges, in UTC days as the API counts them. */
export function presetRanges(now = new Date()): Array<{ label: string; from: string; to: string }> {
  const today = iso(now);
  const daysAgo = (n: number) => iso(new Date(now.getTime() - n * 86_400_000));
  const monthStart = `${today.slice(0, 8)}01`;
  const lastMonthEnd = new Date(Date.parse(`${monthStart}T00:00:00Z`) - 86_400_000);
  return [
    { label: 'This month', from: monthStart, to: today },
    { label: 'Last 7 days', from: daysAgo(6), to: today },
    { label: 'Last 30 days', from: daysAgo(29), to: today },
    { label: 'Last month', from: `${iso(lastMonthEnd).slice(0, 8)}01`, to: iso(lastMonthEnd) },
  ];
}

/** Whole days until `at` (rounded up), for "resets in 4 days". */
export function daysUntil(at: string, now = Date.now()): number {
  return Math.max(0, Math.ceil((Date.parse(at) - now) / 86_400_000));
}
