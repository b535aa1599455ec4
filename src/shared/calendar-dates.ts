// Calendar dates (`YYYY-MM-DD`, always UTC) for query filters and billing periods: parse strictly
// (2026-02-30 is not a date), turn into half-open instant ranges, and find month boundaries.

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of the given date in epoch ms, or null when the text is not a real date. */
export function parseCalendarDate(text: string): number | null {
  const m = DATE_RE.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March; a real date survives the round trip.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms;
}

/** The `YYYY-MM-DD` (UTC) of an instant. */
export function formatCalendarDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Midnight UTC at the start of the day holding `ms`. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function addDays(ms: number, days: number): number {
  return ms + days * DAY_MS;
}

/** Whole days from `fromMs` to `toMs` (both midnights), inclusive of both ends. */
export function daysInclusive(fromMs: number, toMs: number): number {
  return Math.round((toMs - fromMs) / DAY_MS) + 1;
}

/** First instant of the UTC month holding `ms`. */
export function startOfUtcMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** First instant of the UTC month after the one holding `ms`. */
export function startOfNextUtcMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
