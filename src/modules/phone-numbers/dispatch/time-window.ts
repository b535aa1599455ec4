// Is an instant inside a rule's time window? Windows are wall-clock times in the rule's IANA
// zone, so they follow DST: a window inside the hour skipped at spring-forward does not open that
// day, and one inside the hour repeated at fall-back is open during both passes. A window whose
// end is not after its start crosses midnight; the days listed are the days it *starts* on
// (fri 22:00–06:00 is open Friday night until Saturday 06:00).
import { DateTime } from 'luxon';
import { minutesOf, WEEKDAYS, type TimeWindow, type Weekday } from './rule.js';

export type FilterCheck = { ok: true } | { ok: false; reason: string };

const pad = (n: number) => String(n).padStart(2, '0');

export function checkTimeWindow(w: TimeWindow, at: Date): FilterCheck {
  const local = DateTime.fromJSDate(at, { zone: w.timezone });
  if (!local.isValid) return { ok: false, reason: `unknown time zone ${w.timezone}` };
  const today: Weekday = WEEKDAYS[local.weekday - 1]!;
  const yesterday: Weekday = WEEKDAYS[(local.weekday + 5) % 7]!;
  const now = local.hour * 60 + local.minute;
  const start = minutesOf(w.start);
  const end = minutesOf(w.end);
  const days = new Set(w.days);

  const open =
    start < end
      ? days.has(today) && now >= start && now < end
      : (days.has(today) && now >= start) || (days.has(yesterday) && now < end);
  if (open) return { ok: true };
  const when = `${today} ${pad(local.hour)}:${pad(local.minute)} ${w.timezone}`;
  return { ok: false, reason: `${when} is outside ${w.days.join(',')} ${w.start}-${w.end}` };
}
