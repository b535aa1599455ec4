import { describe, expect, it } from 'vitest';
import type { TimeWindow } from './rule.js';
import { checkTimeWindow } from './time-window.js';

const open = (w: TimeWindow, iso: string) => checkTimeWindow(w, new Date(iso)).ok;

describe('checkTimeWindow', () => {
  const office: TimeWindow = {
    days: ['mon', 'tue', 'wed', 'thu', 'fri'],
    start: '09:00',
    end: '17:00',
    timezone: 'America/New_York',
  };

  it('opens at start, closes at the exclusive end, on listed days only', () => {
    // 2026-11-02 is a Monday; New York is on EST (UTC-5).
    expect(open(office, '2026-11-02T13:59:59Z')).toBe(false);
    expect(open(office, '2026-11-02T14:00:00Z')).toBe(true);
    expect(open(office, '2026-11-02T21:59:59Z')).toBe(true);
    expect(open(office, '2026-11-02T22:00:00Z')).toBe(false);
    expect(open(office, '2026-11-07T15:00:00Z')).toBe(false); // Saturday
  });

  it('follows the wall clock across DST: the same UTC hour is inside on one side only', () => {
    // Friday 2026-03-06 (EST, UTC-5) and Monday 2026-03-09 (EDT, UTC-4).
    expect(open(office, '2026-03-06T13:30:00Z')).toBe(false); // 08:30 EST
    expect(open(office, '2026-03-09T13:30:00Z')).toBe(true); // 09:30 EDT
    expect(open(office, '2026-03-09T21:30:00Z')).toBe(false); // 17:30 EDT
    expect(open(office, '2026-03-06T21:30:00Z')).toBe(true); // 16:30 EST
  });

  it('never opens a window inside the skipped spring-forward hour (New York)', () => {
    const gap: TimeWindow = { days: ['sun'], start: '02:00', end: '03:00', timezone: 'America/New_York' };
    // 2026-03-08: 01:59:59 EST (06:59:59Z) is followed by 03:00 EDT (07:00Z).
    for (const iso of ['2026-03-08T06:30:00Z', '2026-03-08T06:59:59Z', '2026-03-08T07:00:00Z']) {
      expect(open(gap, iso), iso).toBe(false);
    }
    expect(open(gap, '2026-03-15T06:30:00Z')).toBe(true); // 02:30 EDT a week later
    const around: TimeWindow = { ...gap, start: '01:00', end: '04:00' };
    expect(open(around, '2026-03-08T07:00:00Z')).toBe(true); // 03:00 EDT
    expect(open(around, '2026-03-08T08:00:00Z')).toBe(false); // 04:00 EDT
  });

  it('keeps a window open through both passes of the repeated fall-back hour (New York)', () => {
    const rep: TimeWindow = { days: ['sun'], start: '01:00', end: '02:00', timezone: 'America/New_York' };
    expect(open(rep, '2026-11-01T04:59:59Z')).toBe(false); // 00:59 EDT
    expect(open(rep, '2026-11-01T05:30:00Z')).toBe(true); // 01:30 EDT
    expect(open(rep, '2026-11-01T06:30:00Z')).toBe(true); // 01:30 EST
    expect(open(rep, '2026-11-01T07:00:00Z')).toBe(false); // 02:00 EST
  });

  it('handles Berlin spring-forward and fall-back', () => {
    const two: TimeWindow = { days: ['sun'], start: '02:00', end: '03:00', timezone: 'Europe/Berlin' };
    // 2026-03-29: 01:59:59 CET (00:59:59Z) is followed by 03:00 CEST (01:00Z).
    expect(open(two, '2026-03-29T00:59:59Z')).toBe(false);
    expect(open(two, '2026-03-29T01:00:00Z')).toBe(false);
    // 2026-10-25: 02:00-03:00 happens twice, 00:00Z-01:00Z (CEST) and 01:00Z-02:00Z (CET).
    expect(open(two, '2026-10-25T00:30:00Z')).toBe(true);
    expect(open(two, '2026-10-25T01:30:00Z')).toBe(true);
    expect(open(two, '2026-10-25T02:00:00Z')).toBe(false);
    expect(open(two, '2026-10-24T23:59:59Z')).toBe(false); // 01:59 CEST
  });

  it('crosses midnight into the day after a listed day, not the day before it', () => {
    const night: TimeWindow = { days: ['fri'], start: '22:00', end: '06:00', timezone: 'Europe/Berlin' };
    // Friday 2026-11-06 and Saturday 2026-11-07, CET (UTC+1).
    expect(open(night, '2026-11-06T20:59:59Z')).toBe(false); // Fri 21:59
    expect(open(night, '2026-11-06T21:00:00Z')).toBe(true); // Fri 22:00
    expect(open(night, '2026-11-06T23:30:00Z')).toBe(true); // Sat 00:30
    expect(open(night, '2026-11-07T04:59:59Z')).toBe(true); // Sat 05:59
    expect(open(night, '2026-11-07T05:00:00Z')).toBe(false); // Sat 06:00
    expect(open(night, '2026-11-05T23:30:00Z')).toBe(false); // Fri 00:30 (Thursday's night)
    expect(open(night, '2026-11-07T21:30:00Z')).toBe(false); // Sat 22:30
  });

  it('crosses midnight on the night clocks go back', () => {
    const night: TimeWindow = { days: ['sat'], start: '22:00', end: '06:00', timezone: 'America/New_York' };
    expect(open(night, '2026-11-01T02:00:00Z')).toBe(true); // Sat 22:00 EDT
    expect(open(night, '2026-11-01T06:30:00Z')).toBe(true); // Sun 01:30 EST (second pass)
    expect(open(night, '2026-11-01T10:59:59Z')).toBe(true); // Sun 05:59 EST
    expect(open(night, '2026-11-01T11:00:00Z')).toBe(false); // Sun 06:00 EST
  });

  it('reads end == start as 24 hours from start', () => {
    const day: TimeWindow = { days: ['sat', 'sun'], start: '00:00', end: '00:00', timezone: 'UTC' };
    expect(open(day, '2026-11-07T00:00:00Z')).toBe(true);
    expect(open(day, '2026-11-08T23:59:59Z')).toBe(true);
    expect(open(day, '2026-11-09T00:00:00Z')).toBe(false);
    expect(open(day, '2026-11-06T23:59:59Z')).toBe(false);
  });

  it('explains a miss in local time, and fails closed on an unknown zone', () => {
    const miss = checkTimeWindow(office, new Date('2026-11-07T15:00:00Z'));
    expect(miss).toEqual({
      ok: false,
      reason: 'sat 10:00 America/New_York is outside mon,tue,wed,thu,fri 09:00-17:00',
    });
    const bad = checkTimeWindow({ ...office, timezone: 'Mars/Olympus' }, new Date('2026-11-02T15:00:00Z'));
    expect(bad).toEqual({ ok: false, reason: 'unknown time zone Mars/Olympus' });
  });
});
