// The dispatch rule as stored on a phone number and evaluated for inbound calls (docs/dispatch.md).
// Pure data: shared by the API (validation, dispatch-test) and the call controller.

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The priority a rule gets when it names none (lower evaluates first). */
export const DEFAULT_PRIORITY = 100;

/** The literal that matches callers who withhold their number. */
export const ANONYMOUS = 'anonymous';

export interface TimeWindow {
  /** Days on which the window *starts*; a window crossing midnight runs on into the next day. */
  days: Weekday[];
  /** 24-hour HH:MM, inclusive. */
  start: string;
  /** 24-hour HH:MM, exclusive. end <= start crosses midnight; end == start is 24 hours. */
  end: string;
  /** IANA time zone the times are read in (wall-clock time, so DST shifts are followed). */
  timezone: string;
}

export interface CallerIdFilter {
  /** E.164 numbers, `+digits` prefixes or `anonymous`; when present the caller must match one. */
  allow?: string[];
  /** Same forms; a caller matching any entry is refused, even if `allow` matches too. */
  block?: string[];
}

export interface DispatchRule {
  workflow_id: string;
  priority: number;
  time_window?: TimeWindow;
  caller_id?: CallerIdFilter;
  variables: Record<string, unknown>;
  /** Record the calls this rule takes (docs/calls.md, "Recording"). */
  record?: boolean;
}

/** `HH:MM` → minutes after midnight; the format is validated before rules are stored. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}
