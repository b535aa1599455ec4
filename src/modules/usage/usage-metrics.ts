// The metered quantities. A usage event's `metric` is one of these names and its `quantity` is in
// that metric's unit: voice_minutes in (fractional) minutes, stt_seconds in seconds, the rest in
// counts. The API reports every metric, zero when nothing was recorded.

export const USAGE_METRICS = [
  'voice_minutes',
  'calls',
  'sessions',
  'llm_input_tokens',
  'llm_output_tokens',
  'stt_seconds',
  'tts_characters',
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

export type UsageMetrics = Record<UsageMetric, number>;

export function isUsageMetric(value: string): value is UsageMetric {
  return (USAGE_METRICS as readonly string[]).includes(value);
}

export function emptyMetrics(): UsageMetrics {
  return {
    voice_minutes: 0,
    calls: 0,
    sessions: 0,
    llm_input_tokens: 0,
    llm_output_tokens: 0,
    stt_seconds: 0,
    tts_characters: 0,
  };
}

/**
 * Sums leave the store as floats (quantities are double precision); the API shows voice minutes
 * with two decimals and every other metric as a whole number.
 */
export function presentMetrics(sums: Partial<Record<string, number>>): UsageMetrics {
  const out = emptyMetrics();
  for (const m of USAGE_METRICS) {
    const v = sums[m] ?? 0;
    out[m] = m === 'voice_minutes' ? Math.round(v * 100) / 100 : Math.round(v);
  }
  return out;
}
