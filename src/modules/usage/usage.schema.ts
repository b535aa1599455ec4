import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../shared/schemas.js';

const CalendarDate = Type.String({ description: 'A UTC calendar date, YYYY-MM-DD' });

const GROUPINGS = ['metric', 'day', 'project', 'provider'] as const;

// Dates are checked in the service (a real calendar date, from <= to), so every date mistake reads
// the same; the schema only documents them.
export const UsageQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      description: 'First day, inclusive (UTC, YYYY-MM-DD). Default: the first day of the month of `to`.',
      examples: ['2026-11-01'],
    }),
  ),
  to: Type.Optional(
    Type.String({
      description: 'Last day, inclusive (UTC, YYYY-MM-DD). Default: today. At most 366 days from `from`.',
      examples: ['2026-11-30'],
    }),
  ),
  group_by: Type.Optional(
    Type.Unsafe<(typeof GROUPINGS)[number]>({
      type: 'string',
      enum: [...GROUPINGS],
      description: 'metric (default): totals only; day, project, provider: totals plus `groups`',
    }),
  ),
});
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageMetricsSchema = Type.Object(
  {
    voice_minutes: Type.Number({ description: 'Minutes of call audio, two decimals' }),
    calls: Type.Integer(),
    sessions: Type.Integer(),
    llm_input_tokens: Type.Integer(),
    llm_output_tokens: Type.Integer(),
    stt_seconds: Type.Integer(),
    tts_characters: Type.Integer(),
  },
  { description: 'Every metric, zero when nothing was recorded' },
);

export const UsageGroup = Type.Object(
  {
    day: Type.Optional(CalendarDate),
    project_id: Type.Optional(Nullable(Type.String())),
    provider: Type.Optional(Nullable(Type.String())),
    metrics: UsageMetricsSchema,
  },
  { description: 'One of `day`, `project_id` or `provider` (per group_by), plus its metrics' },
);

export const Usage = Type.Object(
  {
    from: CalendarDate,
    to: CalendarDate,
    group_by: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('project'), Type.Literal('provider')]),
    ),
    metrics: UsageMetricsSchema,
    groups: Type.Optional(Type.Array(UsageGroup)),
  },
  { $id: 'Usage' },
);
export type Usage = Static<typeof Usage>;
export type UsageGroup = Static<typeof UsageGroup>;
