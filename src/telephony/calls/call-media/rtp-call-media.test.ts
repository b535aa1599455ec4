import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import type { RtpSession } from '../../media/rtp-session.js';
import { DUPLICATE_MS, RtpCallMedia } from './rtp-call-media.js';

function fakeRtp() {
  const queued: Int16Array[] = [];
  let cleared = 0;
  const sender = {
    get queuedMs() {
      return queued.reduce((ms, b) => ms + b.length / 16, 0);
    },
    clear: () => {
      queued.length = 0;
      cleared++;
    },
  };
  const rtp = { sender, enqueue: (pcm: Int16Array) => queued.push(pcm) } as unknown as RtpSession;
  return { rtp, queued, cleared: () => cleared };
}

const press = (digit: string) => ({ digit, timestamp: 0, volume: 10 });

describe('RtpCallMedia', () => {
  it('plays through the session sender and stops playback on demand', () => {
    const media = new RtpCallMedia(new FakeClock());
    const { rtp, queued, cleared } = fakeRtp();
    media.play(new Int16Array(320)); // before attach: nowhere to go
    expect(media.queuedMs).toBe(0);
    media.attach(rtp);
    media.play(new Int16Array(320));
    expect(queued).toHaveLength(1);
    expect(media.queuedMs).toBe(20);
    media.stopPlayback();
    expect(cleared()).toBe(1);
    expect(media.queuedMs).toBe(0);
  });

  it('clears the queue once when the call closes, and not again for the stops that follow', () => {
    const media = new RtpCallMedia(new FakeClock());
    const { rtp, queued, cleared } = fakeRtp();
    media.attach(rtp);
    media.play(new Int16Array(320));
    media.close();
    expect(cleared()).toBe(1);
    expect(queued).toHaveLength(0);
    // The prompt's stop and the channel's close after a hang-up: nothing more goes to the sender.
    media.stopPlayback();
    media.stopPlayback();
    media.play(new Int16Array(320));
    expect(cleared()).toBe(1);
    expect(queued).toHaveLength(0);
  });

  it('hands out the caller audio and digits of both paths to listeners', () => {
    const clock = new FakeClock();
    const media = new RtpCallMedia(clock);
    const frames: number[] = [];
    const digits: string[] = [];
    media.onAudio((pcm) => frames.push(pcm.length));
    const off = media.onDigit((d) => digits.push(d));
    media.rtpCallbacks.onAudio!(new Int16Array(320), { concealed: false, sequence: 1 });
    media.rtpCallbacks.onDigit!(press('1'));
    clock.advance(1000);
    media.infoDigit('2');
    clock.advance(1000);
    media.rtpCallbacks.onDigit!(press('1')); // a second press of the same key
    expect(frames).toEqual([320]);
    expect(digits).toEqual(['1', '2', '1']);
    expect(media.digitCounts).toEqual({ rtp: 2, info: 1, duplicates: 0 });
    off();
    media.infoDigit('3');
    expect(digits).toHaveLength(3);
  });

  it('a press sent both ways (RFC 4733 and INFO) is one event; the same key later is another', () => {
    const clock = new FakeClock();
    const media = new RtpCallMedia(clock);
    const digits: string[] = [];
    media.onDigit((d) => digits.push(d));
    media.rtpCallbacks.onDigit!(press('5'));
    clock.advance(DUPLICATE_MS - 1);
    media.infoDigit('5');
    expect(digits).toEqual(['5']);
    clock.advance(DUPLICATE_MS);
    media.infoDigit('5');
    expect(digits).toEqual(['5', '5']);
    expect(media.digitCounts.duplicates).toBe(1);
  });

  it('hears and plays nothing while suspended (a bridge owns the line) or once closed', () => {
    const media = new RtpCallMedia(new FakeClock());
    const { rtp, queued } = fakeRtp();
    media.attach(rtp);
    const digits: string[] = [];
    media.onDigit((d) => digits.push(d));
    media.suspended = true;
    media.infoDigit('1');
    media.play(new Int16Array(160));
    media.suspended = false;
    media.infoDigit('2');
    media.close();
    media.infoDigit('3');
    media.play(new Int16Array(160));
    expect(digits).toEqual(['2']);
    expect(queued).toHaveLength(0);
    expect(media.queuedMs).toBe(0);
  });

  it('diverted presses (a bridge) go to the divert only, suspended or not, both paths de-duplicated', () => {
    const clock = new FakeClock();
    const media = new RtpCallMedia(clock);
    const own: string[] = [];
    const bridged: string[] = [];
    media.onDigit((d) => own.push(d));
    media.suspended = true;
    media.infoDigit('1'); // suspended, nobody diverting: dropped
    const release = media.divertDigits((d) => bridged.push(d));
    media.infoDigit('2');
    clock.advance(50);
    media.rtpCallbacks.onDigit!(press('2')); // the same press by RFC 4733
    clock.advance(DUPLICATE_MS);
    media.rtpCallbacks.onDigit!(press('#'));
    expect(bridged).toEqual(['2', '#']);
    expect(own).toEqual([]);
    release();
    media.suspended = false;
    clock.advance(DUPLICATE_MS);
    media.infoDigit('3');
    expect(own).toEqual(['3']);
    expect(bridged).toEqual(['2', '#']);
  });
});
