import { describe, expect, it } from 'vitest';
import { FakeClock } from '../shared/clock.js';
import { TextChannel, type TextChannelOutput } from './text-channel.js';

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function make(options: Partial<ConstructorParameters<typeof TextChannel>[0]> = {}) {
  const clock = new FakeClock();
  const channel = new TextChannel({ clock, ...options });
  const outs: TextChannelOutput[] = [];
  channel.onOutput((o) => outs.push(o));
  return { clock, channel, outs, signal: new AbortController().signal };
}

describe('TextChannel', () => {
  it('delivers queued text in order, stamped with the end of the turn', async () => {
    const { clock, channel, signal } = make();
    clock.advance(100);
    channel.pushText('one');
    clock.advance(50);
    channel.pushText('two');
    expect(await channel.listen({ signal })).toEqual({ text: 'one', endedAt: 100 });
    expect(await channel.listen({ signal })).toEqual({ text: 'two', endedAt: 150 });
  });

  it('waits for text, and gives null after timeoutMs of silence', async () => {
    const { clock, channel, signal } = make();
    const waiting = channel.listen({ signal });
    await settle();
    channel.pushText('late');
    expect((await waiting)?.text).toBe('late');
    const silent = channel.listen({ signal, timeoutMs: 1000 });
    clock.advance(999);
    await settle();
    clock.advance(1);
    expect(await silent).toBeNull();
    expect(clock.pending()).toBe(0);
  });

  it('buffers digits, ignoring keys that are not DTMF', async () => {
    const { channel, signal } = make();
    channel.pushDtmf('1x2#');
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await channel.nextDigit({ signal }));
    expect(got).toEqual(['1', '2', '#']);
    channel.pushDtmf('9');
    channel.clearDigits();
    expect(await channel.nextDigit({ signal, timeoutMs: 0 })).toBeNull();
  });

  it('is silent at once when input is closed (simulations)', async () => {
    const { channel, signal } = make({ silenceWhenIdle: true });
    expect(await channel.listen({ signal })).toBeNull();
    expect(await channel.nextDigit({ signal })).toBeNull();
  });

  it('closeInput resolves a waiting listen as silence', async () => {
    const { channel, signal } = make();
    const waiting = channel.listen({ signal });
    channel.closeInput();
    expect(await waiting).toBeNull();
  });

  it('rejects a waiting listen with the abort reason and clears its timer', async () => {
    const { clock, channel } = make();
    const c = new AbortController();
    const waiting = channel.listen({ signal: c.signal, timeoutMs: 5000 });
    c.abort(new Error('hangup'));
    await expect(waiting).rejects.toThrow('hangup');
    expect(clock.pending()).toBe(0);
  });

  it('plays on the clock and reports barge-in only when allowed', async () => {
    const { clock, channel, signal, outs } = make({ playbackMsPerChar: 10 });
    const barged = channel.say('0123456789', { bargeIn: true, signal });
    channel.pushText('stop');
    // Cut in at once: none of it was heard.
    expect(await barged).toEqual({ bargedIn: true, heardChars: 0 });
    const half = channel.say('one two three four', { bargeIn: true, signal });
    clock.advance(95); // 95 of 180 ms: "one two th…"
    channel.pushText('stop');
    expect(await half).toEqual({ bargedIn: true, heardChars: 7 });
    const full = channel.say('0123456789', { bargeIn: false, signal });
    channel.pushText('stop');
    clock.advance(100);
    expect(await full).toEqual({ bargedIn: false });
    expect(outs.filter((o) => o.type === 'assistant_text')).toHaveLength(3);
  });

  it('simulates transfer and dial outcomes, defaulting to success and answered', async () => {
    const { channel, signal, outs } = make();
    expect(await channel.transfer('tel:+15551234567', { mode: 'blind', signal })).toEqual({
      status: 'success',
    });
    expect(await channel.dial('tel:+15551234567', { signal })).toEqual({ status: 'answered' });
    channel.simulated = { transfer: 'failed', dial: 'busy' };
    expect((await channel.transfer('tel:+1555', { mode: 'warm', signal })).status).toBe('failed');
    expect((await channel.dial('tel:+1555', { signal })).status).toBe('busy');
    await channel.hangup();
    await channel.hangup();
    expect(outs.filter((o) => o.type === 'hangup')).toHaveLength(1);
  });
});
