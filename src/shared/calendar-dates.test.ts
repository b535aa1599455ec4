import { describe, expect, it } from 'vitest';
import {
  addDays,
  daysInclusive,
  formatCalendarDate,
  parseCalendarDate,
  startOfNextUtcMonth,
  startOfUtcDay,
  startOfUtcMonth,
} from './calendar-dates.js';

const at = (iso: string) => Date.parse(iso);

describe('calendar dates', () => {
  it('parses only real YYYY-MM-DD dates, as UTC midnight', () => {
    expect(parseCalendarDate('2026-11-02')).toBe(at('2026-11-02T00:00:00Z'));
    expect(parseCalendarDate('2024-02-29')).toBe(at('2024-02-29T00:00:00Z'));
    for (const bad of ['2026-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-1-1', '20261101', '']) {
      expect(parseCalendarDate(bad), bad).toBeNull();
    }
  });

  it('formats, floors and counts days in UTC', () => {
    expect(formatCalendarDate(at('2026-11-02T23:59:59.999Z'))).toBe('2026-11-02');
    expect(startOfUtcDay(at('2026-11-02T23:59:59.999Z'))).toBe(at('2026-11-02T00:00:00Z'));
    expect(addDays(at('2026-12-31T00:00:00Z'), 1)).toBe(at('2027-01-01T00:00:00Z'));
    expect(daysInclusive(at('2026-11-01T00:00:00Z'), at('2026-11-01T00:00:00Z'))).toBe(1);
    expect(daysInclusive(at('2024-01-01T00:00:00Z'), at('2024-12-31T00:00:00Z'))).toBe(366);
  });

  it('finds month boundaries, across the year end', () => {
    expect(startOfUtcMonth(at('2026-11-30T23:59:59.999Z'))).toBe(at('2026-11-01T00:00:00Z'));
    expect(startOfNextUtcMonth(at('2026-11-30T23:59:59.999Z'))).toBe(at('2026-12-01T00:00:00Z'));
    expect(startOfNextUtcMonth(at('2026-12-01T00:00:00Z'))).toBe(at('2027-01-01T00:00:00Z'));
  });
});
