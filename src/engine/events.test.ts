import { describe, expect, it } from 'vitest';
import { EventStream } from './events.js';

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
