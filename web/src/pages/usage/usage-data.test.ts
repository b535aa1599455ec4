import { describe, expect, it } from 'vitest';
import { barsOf, daysUntil, groupLines, METRICS, presetRanges, type Metrics } from './usage-data';

const m = (over: Partial<Metrics>): Metrics => ({
  ...(Object.fromEntries(METRICS.map((x) => [x.value, 0])) as Metrics),
  ...over,
});

describe('usage figures', () => {
  it('bars one metric, largest first, scaled to the largest, leaving out groups without it', () => {
    const groups = [
      { provider: 'generic', metrics: m({ voice_minutes: 1.5 }) },
      { provider: 'carrier_a', metrics: m({ voice_minutes: 6 }) },
      { provider: 'tts_vendor_1', metrics: m({ tts_characters: 44 }) },
    ];
    expect(barsOf(groups, 'voice_minutes', (g) => g.provider)).toEqual([
      { label: 'carrier_a', value: 6, percent: 100 },
      { label: 'generic', value: 1.5, percent: 25 },
    ]);
    expect(barsOf(groups, 'calls', (g) => g.provider)).toEqual([]);
  });

  it('lists what each provider metered, one line per metric it has a figure for', () => {
    expect(
      groupLines(
        [
          { provider: 'stt_vendor_1', metrics: m({ stt_seconds: 12 }) },
          { provider: 'tts_vendor_1', metrics: m({ tts_characters: 44 }) },
          { provider: null, metrics: m({ calls: 1, sessions: 4 }) },
        ],
        (g) => g.provider ?? 'No provider',
      ).map((l) => [l.group, l.label, l.value]),
    ).toEqual([
      ['stt_vendor_1', 'Speech-to-text seconds', 12],
      ['tts_vendor_1', 'Text-to-speech characters', 44],
      ['No provider', 'Calls', 1],
      ['No provider', 'Sessions', 4],
    ]);
  });

  it('offers quick ranges in UTC days', () => {
    const ranges = presetRanges(new Date('2026-03-10T23:30:00Z'));
    expect(ranges).toEqual([
      { label: 'This month', from: '2026-03-01', to: '2026-03-10' },
      { label: 'Last 7 days', from: '2026-03-04', to: '2026-03-10' },
      { label: 'Last 30 days', from: '2026-02-09', to: '2026-03-10' },
      { label: 'Last month', from: '2026-02-01', to: '2026-02-28' },
    ]);
    expect(daysUntil('2026-04-01T00:00:00Z', Date.parse('2026-03-10T23:30:00Z'))).toBe(22);
    expect(daysUntil('2026-04-01T00:00:00Z', Date.parse('2026-04-02T00:00:00Z'))).toBe(0);
  });
});
