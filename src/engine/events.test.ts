import { describe, expect, it } from 'vitest';
import {
  SESSION_END_REASONS,
  type SessionEndReason as StoredEndReason,
} from '../shared/session-end-reasons.js';
import { EventStream, type SessionEndReason } from './events.js';

describe('SessionEndReason', () => {
  it('is the same list the store keeps (a reason the engine lacks would need a cast)', () => {
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
    const same: Same<SessionEndReason, StoredEndReason> = true;
    const engine: Record<SessionEndReason, true> = {
      completed: true,
      failed: true,
      transferred: true,
      force_ended: true,
      client_ended: true,
      client_disconnected: true,
      timeout: true,
      caller_hangup: true,
      media_failed: true,
    };
    expect(same).toBe(true);
    expect(Object.keys(engine).sort()).toEqual([...SESSION_END_REASONS].sort());
  });
});

describe('EventStream', () => {
  it('stamps events with the clock and delivers them in order, isolating broken listeners', () => {
    let now = 1000;
    const stream = new EventStream(() => now, true);
    const seen: string[] = [];
    stream.subscribe(() => {
      throw new Error('broken');
    });
    const off = stream.subscribe((e) => seen.push(`${e.type}@${e.at}`));
    stream.emit({ type: 'node.entered', node_id: 'a', node_type: 'start' });
    now = 2000;
    stream.emit({ type: 'dtmf', digits: '1' });
    off();
    stream.emit({ type: 'dtmf', digits: '2' });
    expect(seen).toEqual(['node.entered@1000', 'dtmf@2000']);
    expect(stream.events).toHaveLength(3);
  });

  it('keeps no history unless asked', () => {
    const stream = new EventStream(() => 0);
    stream.emit({ type: 'dtmf', digits: '1' });
    expect(stream.events).toEqual([]);
  });
});
