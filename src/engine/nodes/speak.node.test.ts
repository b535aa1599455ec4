import { describe, expect, it } from 'vitest';
import { nodeHarness, settle } from '../../../test/support/engine-harness.js';
import { speakNode } from './speak.node.js';

describe('speak', () => {
  it('says the rendered template and records an assistant message', async () => {
    const h = nodeHarness({ variables: { name: 'Ada' } });
    const said: string[] = [];
    h.channel.onOutput((o) => o.type === 'assistant_text' && said.push(o.text));
    expect(await speakNode.run(h.ctx, { text: 'Hello {{name}}' }, h.signal)).toEqual({ handle: 'default' });
    expect(said).toEqual(['Hello Ada']);
    expect(h.of('message')).toMatchObject([{ role: 'assistant', content: 'Hello Ada' }]);
  });

  it('with barge_in, a key press cuts the prompt short and stays buffered', async () => {
    const h = nodeHarness({ channel: { playbackMsPerChar: 100 } });
    let done = false;
    const run = speakNode.run(h.ctx, { text: 'Press one for sales' }, h.signal).then(() => (done = true));
    await settle();
    h.clock.advance(500);
    await settle();
    expect(done).toBe(false);
    h.channel.pushDtmf('1');
    await run;
    expect(h.clock.monotonic()).toBe(500);
    expect(await h.channel.nextDigit({ signal: h.signal })).toBe('1');
  });

  it('without barge_in, plays to the end despite input', async () => {
    const h = nodeHarness({ channel: { playbackMsPerChar: 100 } });
    let done = false;
    const run = speakNode.run(h.ctx, { text: 'Hello', barge_in: false }, h.signal).then(() => (done = true));
    await settle();
    h.channel.pushText('hi');
    await settle();
    expect(done).toBe(false);
    h.clock.advance(500);
    await run;
    expect(done).toBe(true);
  });

  it('rejects when its signal aborts', async () => {
    const h = nodeHarness({ channel: { playbackMsPerChar: 100 } });
    const run = speakNode.run(h.ctx, { text: 'Hello' }, h.signal);
    await settle();
    h.abort(new Error('hangup'));
    await expect(run).rejects.toThrow('hangup');
  });
});
