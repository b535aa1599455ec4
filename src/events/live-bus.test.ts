import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  announce,
  LocalLiveHub,
  MemoryLiveBus,
  parseLiveMessage,
  type LiveEvent,
  type LiveMessage,
} from './live-bus.js';
import { followLiveEvents } from './live-follow.js';

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40).map((l) => l.msg) };
}

const END: LiveEvent = {
  kind: 'session.end',
  session_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  reason: 'force_ended',
};
const CANCEL: LiveEvent = { kind: 'call.cancel', call_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c' };
const FROM = { node_id: 'node-a', origin: 'abc123' };

describe('parseLiveMessage', () => {
  it('reads both kinds with their sender', () => {
    expect(parseLiveMessage(JSON.stringify({ ...END, ...FROM }))).toEqual({ ...END, ...FROM });
    expect(parseLiveMessage(JSON.stringify({ ...CANCEL, ...FROM }))).toEqual({ ...CANCEL, ...FROM });
  });

  it('says what is wrong with anything else', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['{not json', /not JSON/],
      [[1, 2], /not an object/],
      [null, /not an object/],
      [{ ...END }, /node_id and origin/],
      [{ ...END, ...FROM, node_id: 'a b' }, /node_id and origin/],
      [{ ...END, ...FROM, session_id: 42 }, /session_id/],
      [{ ...END, ...FROM, session_id: 'x'.repeat(101) }, /session_id/],
      // A reason the receiver would write into the row must be one of ours.
      [{ ...END, ...FROM, reason: 'because' }, /unknown reason/],
      [{ ...CANCEL, ...FROM, call_id: '' }, /call_id/],
      [{ kind: 'call.redirect', call_id: 'c', ...FROM }, /unknown kind "call.redirect"/],
    ];
    for (const [value, problem] of cases) {
      const raw = typeof value === 'string' ? value : JSON.stringify(value);
      expect(parseLiveMessage(raw), raw).toMatch(problem);
    }
  });
});

describe('MemoryLiveBus', () => {
  it("delivers one bus's events to the other buses of its hub, not back to itself", async () => {
    const hub = new LocalLiveHub();
    const { logger } = recordingLogger();
    const a = new MemoryLiveBus('node-a', logger, hub);
    const b = new MemoryLiveBus('node-b', logger, hub);
    const elsewhere = new MemoryLiveBus('node-c', logger);
    const got = { a: [] as LiveMessage[], b: [] as LiveMessage[], elsewhere: [] as LiveMessage[] };
    a.subscribe((m) => void got.a.push(m));
    b.subscribe((m) => void got.b.push(m));
    elsewhere.subscribe((m) => void got.elsewhere.push(m));
    await a.ready();

    await a.publish(END);
    await b.publish(CANCEL);
    expect(got.b).toEqual([{ ...END, node_id: 'node-a', origin: a.origin }]);
    expect(got.a).toEqual([{ ...CANCEL, node_id: 'node-b', origin: b.origin }]);
    // A process without Redis has a hub of its own: nothing reaches it from another.
    expect(got.elsewhere).toEqual([]);
    expect(a.origin).not.toBe(b.origin);
  });

  it('stops delivering to an unsubscribed handler and to a closed bus; a closed bus cannot publish', async () => {
    const hub = new LocalLiveHub();
    const { logger } = recordingLogger();
    const a = new MemoryLiveBus('node-a', logger, hub);
    const b = new MemoryLiveBus('node-b', logger, hub);
    const kept: LiveMessage[] = [];
    const dropped: LiveMessage[] = [];
    b.subscribe((m) => void kept.push(m));
    const off = b.subscribe((m) => void dropped.push(m));
    off();
    await a.publish(END);
    expect(kept).toHaveLength(1);
    expect(dropped).toEqual([]);
    await b.close();
    await a.publish(CANCEL);
    expect(kept).toHaveLength(1);
    await a.close();
    await expect(a.publish(END)).rejects.toThrow(/closed/);
  });

  it('logs and ignores malformed messages, and a failing handler keeps no other from running', async () => {
    const hub = new LocalLiveHub();
    const rec = recordingLogger();
    const a = new MemoryLiveBus('node-a', rec.logger, hub);
    const b = new MemoryLiveBus('node-b', rec.logger, hub);
    const got: LiveMessage[] = [];
    b.subscribe(() => {
      throw new Error('handler bug');
    });
    b.subscribe(async () => {
      throw new Error('async handler bug');
    });
    b.subscribe((m) => void got.push(m));

    // As if off the wire, to b alone.
    b.receive('{"kind":"session.end"');
    b.receive(JSON.stringify({ kind: 'session.end', session_id: 's', reason: 'nope', ...FROM }));
    expect(rec.warnings()).toEqual(['ignored a malformed live event', 'ignored a malformed live event']);
    expect(got).toEqual([]);

    await a.publish(END);
    // The async handler's rejection is caught on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(got).toEqual([{ ...END, node_id: 'node-a', origin: a.origin }]);
    const errors = rec.lines.filter((l) => l.level === 50);
    expect(errors.map((l) => l.msg)).toEqual(['a live event handler failed', 'a live event handler failed']);
  });
});

describe('announce', () => {
  it('publishes, and logs instead of throwing when the bus fails', async () => {
    const rec = recordingLogger();
    const sent: LiveEvent[] = [];
    await announce({ publish: async (e) => void sent.push(e) }, CANCEL, rec.logger);
    expect(sent).toEqual([CANCEL]);
    await announce(
      {
        publish: async () => {
          throw new Error('Redis is away');
        },
      },
      END,
      rec.logger,
    );
    expect(rec.lines.map((l) => l.msg)).toEqual(['could not tell the other nodes a live event']);
    await announce(undefined, END, rec.logger);
  });
});

describe('followLiveEvents', () => {
  it("aborts the session and cancels the call on this node's targets", async () => {
    const hub = new LocalLiveHub();
    const { logger } = recordingLogger();
    const a = new MemoryLiveBus('node-a', logger, hub);
    const b = new MemoryLiveBus('node-b', logger, hub);
    const aborted: string[][] = [];
    const cancelled: string[] = [];
    const off = followLiveEvents(b, {
      sessions: { abort: (id, reason) => void aborted.push([id, reason]) },
      calls: {
        cancelLive: async (id) => {
          cancelled.push(id);
          return true;
        },
      },
      logger,
    });
    await a.publish(END);
    await a.publish(CANCEL);
    expect(aborted).toEqual([[END.session_id, 'force_ended']]);
    expect(cancelled).toEqual([CANCEL.call_id]);
    off();
    await a.publish(END);
    expect(aborted).toHaveLength(1);
  });

  it('does nothing on a node without sessions or calls (role api without SIP hears call.cancel)', async () => {
    const hub = new LocalLiveHub();
    const { logger } = recordingLogger();
    const a = new MemoryLiveBus('node-a', logger, hub);
    const b = new MemoryLiveBus('node-b', logger, hub);
    followLiveEvents(b, { logger });
    await expect(a.publish(END)).resolves.toBeUndefined();
    await expect(a.publish(CANCEL)).resolves.toBeUndefined();
  });
});
