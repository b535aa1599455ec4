import { describe, expect, it } from 'vitest';
import { TextChannel } from '../channels/text-channel.js';
import { FakeClock } from '../shared/clock.js';
import { SessionNotActiveError, SessionRegistry } from './session-runtime.js';
import { graph, settle } from '../../test/support/engine-harness.js';

const pinFlow = graph(
  [
    ['start', 'start'],
    ['ask', 'dtmf', { prompt: 'PIN?', num_digits: 4, timeout_seconds: 10, save_to_variable: 'pin' }],
    ['echo', 'speak', { text: 'You typed {{pin}}' }],
    ['bye', 'end'],
  ],
  [
    ['start', 'ask'],
    ['ask', 'echo', 'success'],
    ['ask', 'bye', 'timeout'],
    ['echo', 'bye'],
  ],
);

function setup() {
  const clock = new FakeClock();
  const registry = new SessionRegistry();
  const session = registry.create({
    sessionId: 's1',
    clock,
    channel: new TextChannel({ clock }),
    graph: pinFlow,
    keepHistory: true,
  });
  return { clock, registry, session };
}

describe('session runtime', () => {
  it('pending → active → ended(completed), with duration and session.ended', async () => {
    const { clock, registry, session } = setup();
    expect(session.status).toBe('pending');
    session.start();
    expect(session.status).toBe('active');
    await settle();
    clock.advance(3000);
    session.sendDtmf('1234');
    const summary = await session.done;
    expect(summary).toMatchObject({ endReason: 'completed', durationSeconds: 3 });
    expect(summary.execution?.variables.pin).toBe('1234');
    expect(session.events.events.at(-1)).toMatchObject({
      type: 'session.ended',
      end_reason: 'completed',
      duration_seconds: 3,
    });
    await settle();
    expect(registry.get('s1')).toBeUndefined();
    expect(() => session.sendText('late')).toThrow(SessionNotActiveError);
  });

  it('force-ends through the registry, aborting the waiting node', async () => {
    const { registry, session } = setup();
    session.start();
    await settle();
    const summary = await registry.end('s1');
    expect(summary).toMatchObject({ endReason: 'force_ended', execution: { status: 'cancelled' } });
    const types = session.events.events.map((e) => e.type);
    expect(types.slice(-3)).toEqual(['execution.cancelled', 'session.status', 'session.ended']);
    expect(registry.end('s1')).toBeUndefined();
  });

  it('ends a pending session without running anything', async () => {
    const { session } = setup();
    const summary = await session.end('timeout');
    expect(summary).toMatchObject({
      endReason: 'timeout',
      startedAt: null,
      durationSeconds: 0,
      execution: null,
    });
    session.start();
    expect(session.status).toBe('ended');
  });

  it('maps execution outcomes to end reasons', async () => {
    const clock = new FakeClock();
    const registry = new SessionRegistry();
    const failing = registry.create({
      sessionId: 's2',
      clock,
      channel: new TextChannel({ clock }),
      graph: graph([['start', 'start']], []),
    });
    failing.start();
    expect((await failing.done).endReason).toBe('failed');
    const transferring = registry.create({
      sessionId: 's3',
      clock,
      channel: new TextChannel({ clock }),
      graph: graph(
        [
          ['start', 'start'],
          ['t', 'transfer_call', { destination: 'tel:+15551234567' }],
        ],
        [['start', 't']],
      ),
    });
    transferring.start();
    expect((await transferring.done).endReason).toBe('transferred');
    expect(() =>
      registry.create({ sessionId: 's3', clock, channel: new TextChannel({ clock }), graph: pinFlow }),
    ).not.toThrow();
  });
});
