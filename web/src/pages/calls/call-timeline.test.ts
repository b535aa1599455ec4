import { describe, expect, it } from 'vitest';
import { callTimeline, nodeSummary, offsetText, spanText, type TimelineCall } from './call-timeline';

const call = (over: Partial<TimelineCall> = {}): TimelineCall => ({
  id: 'c1',
  direction: 'inbound',
  status: 'completed',
  to: '+14155550100',
  created_at: '2026-11-02T10:00:00Z',
  started_at: '2026-11-02T10:00:00Z',
  ended_at: '2026-11-02T10:00:30Z',
  hangup_reason: 'workflow_hangup',
  duration_seconds: 30,
  ...over,
});
const step = (
  node_id: string,
  node_type: string,
  entered_at: string,
  exited_at: string | null,
  handle: string | null,
) => ({
  node_id,
  node_type,
  entered_at,
  exited_at,
  handle,
  keys: null,
  transfer: null,
  error: null,
});

describe('callTimeline', () => {
  it('orders states, steps and events by time, keeping the order of entries in the same second', () => {
    const entries = callTimeline({
      call: call(),
      steps: [
        step('start', 'start', '2026-11-02T10:00:00Z', '2026-11-02T10:00:00Z', 'default'),
        step('hi', 'speak', '2026-11-02T10:00:00Z', '2026-11-02T10:00:03Z', 'default'),
        step('bye', 'hangup', '2026-11-02T10:00:30Z', '2026-11-02T10:00:30Z', 'default'),
      ],
      deliveries: [
        {
          id: 'd2',
          endpoint_id: 'e',
          status: 'dead',
          event: { type: 'call.ended', created_at: '2026-11-02T10:00:30Z' },
        },
        {
          id: 'd1',
          endpoint_id: 'e',
          status: 'succeeded',
          event: { type: 'call.started', created_at: '2026-11-02T10:00:00Z' },
        },
      ],
      nodes: [{ id: 'hi', type: 'speak', config: { text: 'Hello   there,\n caller' } }],
    });
    expect(entries.map((e) => [e.title, e.ref ?? null])).toEqual([
      ['Call arrived', null],
      ['Answered', null],
      ['Webhook call.started', null],
      ['Workflow started', null],
      ['Speak', 'hi'],
      ['Hang up', 'bye'],
      ['Ended: completed', null],
      ['Webhook call.ended', null],
    ]);
    expect(entries[4]!.details).toEqual(['“Hello there, caller”', 'Left by next after 3 s']);
    // A hangup node ends the call by design: no "ended here" line for it.
    expect(entries[5]!.details).toEqual([]);
    expect(entries[6]).toMatchObject({ tone: 'good', details: ['workflow hangup', '30 s long'] });
    expect(entries[7]).toMatchObject({ tone: 'bad', badge: 'dead', href: '/webhooks/e' });
  });

  it('shows keys, transfers and errors on their steps, and a step the call ended inside', () => {
    const entries = callTimeline({
      call: call({ status: 'in_progress', ended_at: null, hangup_reason: null, duration_seconds: null }),
      steps: [
        { ...step('menu', 'dtmf', '2026-11-02T10:00:01Z', '2026-11-02T10:00:04Z', 'success'), keys: '12#' },
        {
          ...step('out', 'transfer_call', '2026-11-02T10:00:04Z', '2026-11-02T10:00:04Z', 'success'),
          transfer: { destination: 'tel:+14155550123', mode: 'blind' },
        },
        {
          ...step('hook', 'webhook', '2026-11-02T10:00:05Z', '2026-11-02T10:00:06Z', null),
          error: 'HTTP 500',
        },
        step('talk', 'agent', '2026-11-02T10:00:06Z', null, null),
      ],
    });
    const byRef = (ref: string) => entries.find((e) => e.ref === ref)!;
    expect(byRef('menu')).toMatchObject({ keys: ['1', '2', '#'], details: ['Left by success after 3 s'] });
    expect(byRef('out')).toMatchObject({
      tone: 'good',
      details: ['Transferred to tel:+14155550123 (blind)'],
    });
    expect(byRef('hook')).toMatchObject({
      tone: 'bad',
      details: ['Failed: HTTP 500', 'The call ended here, after 1 s'],
    });
    expect(byRef('talk').details).toEqual(['Running now']);
    // A live call ends with "now", after everything that happened.
    expect(entries.at(-1)).toMatchObject({ kind: 'now', at: null, title: 'Now: in progress' });
  });

  it('lists the legs dialled from the call, and leads a leg back to its parent', () => {
    const leg = call({
      id: 'leg',
      direction: 'outbound',
      to: '+14155550199',
      status: 'busy',
      created_at: '2026-11-02T10:00:10Z',
      started_at: null,
      ended_at: '2026-11-02T10:00:12Z',
      hangup_reason: 'busy',
      duration_seconds: 0,
      parent_call_id: 'c1',
    });
    const parent = callTimeline({ call: call(), legs: [leg] });
    expect(parent.find((e) => e.kind === 'leg')).toMatchObject({
      title: 'Dialled +14155550199',
      badge: 'busy',
      tone: 'warn',
      href: '/calls/leg',
      details: ['busy'],
    });
    const own = callTimeline({ call: leg });
    expect(own[0]).toMatchObject({ title: 'Leg dialled by a workflow', href: '/calls/c1' });
    expect(own.map((e) => e.title)).toEqual(['Leg dialled by a workflow', 'Ended: busy']);
  });
});

describe('timeline words', () => {
  it('says what a node says, dials or calls, shortened', () => {
    expect(nodeSummary({ id: 'a', type: 'dial', config: { destination: '+14155550199' } })).toBe(
      '+14155550199',
    );
    expect(nodeSummary({ id: 'a', type: 'condition', config: { branches: [] } })).toBeNull();
    expect(nodeSummary(undefined)).toBeNull();
    expect(nodeSummary({ id: 'a', type: 'speak', config: { text: 'x'.repeat(200) } })).toHaveLength(92);
  });

  it('shows what a template step said, read from the conversation, else the template', () => {
    const speak = { id: 'thanks', type: 'speak', config: { text: 'You chose {{choice}}.' } };
    const said = (content: string, at: string, role = 'assistant') => ({ role, content, spoken_at: at });
    const messages = [
      said('You chose 1.', '2026-11-02T10:00:01.200Z', 'user'),
      said('You chose 9.', '2026-11-02T10:00:01.500Z'),
      said('Press 1 for sales', '2026-11-02T10:00:03.100Z'),
      said('You chose  2.', '2026-11-02T10:00:03.400Z'),
    ];
    const entries = callTimeline({
      call: call(),
      steps: [step('thanks', 'speak', '2026-11-02T10:00:03Z', '2026-11-02T10:00:05Z', 'next')],
      nodes: [speak],
      messages,
    });
    expect(entries.find((e) => e.ref === 'thanks')!.details[0]).toBe('“You chose 2.”');
    expect(nodeSummary(speak, ['Something else'])).toBe('“You chose {{choice}}.”');
    expect(nodeSummary(speak)).toBe('“You chose {{choice}}.”');
  });

  it('writes offsets and spans', () => {
    expect(offsetText('2026-11-02T10:00:00Z', '2026-11-02T10:00:07Z')).toBe('+0:07');
    expect(offsetText('2026-11-02T10:00:00Z', '2026-11-02T11:02:03Z')).toBe('+1:02:03');
    expect(spanText('2026-11-02T10:00:00Z', '2026-11-02T10:01:05Z')).toBe('1 min 5 s');
    expect(spanText('2026-11-02T10:00:00Z', '2026-11-02T10:00:00Z')).toBeNull();
    expect(spanText('2026-11-02T10:00:00Z', null)).toBeNull();
  });
});
