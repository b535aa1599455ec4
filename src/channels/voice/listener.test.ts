import { describe, expect, it, vi } from 'vitest';
import { FakeCallMedia } from '../../../test/support/voice-media.js';
import { FakeSttProvider } from '../../../test/support/voice-providers.js';
import { FakeClock } from '../../shared/clock.js';
import { DigitBuffer } from './digit-buffer.js';
import { SpeechListener } from './listener.js';

const drain = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function setup() {
  const clock = new FakeClock();
  const media = new FakeCallMedia(clock);
  const stt = new FakeSttProvider();
  const logger = { warn: vi.fn() };
  const listener = new SpeechListener({ clock, media, stt, logger });
  return { clock, media, stt, logger, listener, signal: new AbortController().signal };
}

describe('SpeechListener', () => {
  it('a vendor that ends the session on its own is replaced while a listen waits', async () => {
    const { stt, listener, logger, signal } = setup();
    let heard: unknown;
    void listener.listen({ signal }).then((t) => (heard = t));
    await drain();
    stt.session.events.end();
    await drain();
    expect(stt.sessions).toHaveLength(2);
    stt.session.final('still here', 0, 500, true);
    await drain();
    expect(heard).toMatchObject({ text: 'still here' });
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('keeps the last eight finished turns for later listens', async () => {
    const { stt, listener, signal } = setup();
    listener.start();
    await drain();
    for (let i = 0; i < 10; i++) stt.session.final(`turn ${i}`, i * 1000, 500, true);
    await drain();
    const texts: string[] = [];
    for (;;) {
      const t = await listener.listen({ signal, timeoutMs: 0 });
      if (!t) break;
      texts.push(t.text);
    }
    expect(texts).toEqual(['turn 2', 'turn 3', 'turn 4', 'turn 5', 'turn 6', 'turn 7', 'turn 8', 'turn 9']);
  });

  it('close() while connecting cuts the connection attempt and opens nothing', async () => {
    const { stt, media, listener, logger, signal } = setup();
    stt.slow = true;
    const heard = listener.listen({ signal });
    media.pushAudio();
    await listener.close();
    await expect(heard).resolves.toBeNull();
    stt.open();
    await drain();
    expect(stt.sessions).toHaveLength(0);
    expect(logger.warn).not.toHaveBeenCalled();
    expect(listener.sttSeconds).toBe(0);
  });

  it('speech listeners hear voice activity and words, and stop when unsubscribed', async () => {
    const { stt, listener } = setup();
    const heard = vi.fn();
    const off = listener.onSpeech(heard);
    listener.start();
    await drain();
    stt.session.speechStarted();
    stt.session.interim('hm');
    stt.session.utteranceEnd(0);
    await drain();
    expect(heard).toHaveBeenCalledTimes(2);
    off();
    stt.session.speechStarted();
    await drain();
    expect(heard).toHaveBeenCalledTimes(2);
  });
});

describe('DigitBuffer', () => {
  it('takes keypad keys only (a-d as A-D), and answers null once closed', async () => {
    const clock = new FakeClock();
    const digits = new DigitBuffer(clock);
    const signal = new AbortController().signal;
    digits.push('1e*b');
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await digits.next({ signal }));
    expect(got).toEqual(['1', '*', 'B']);
    const waiting = digits.next({ signal });
    digits.close();
    await expect(waiting).resolves.toBeNull();
    await expect(digits.next({ signal })).resolves.toBeNull();
  });
});
