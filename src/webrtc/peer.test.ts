// The service's peer connection against a second node-datachannel peer playing the browser, on
// loopback: DTLS-SRTP up, audio both ways decoded, keys from the data channel and RFC 4733, the
// offers it refuses, and the end when the browser goes away.
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../shared/clock.js';
import { ClientPeer } from './client-peer.js';
import { WebRtcPeer } from './peer.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

function tone(ms: number, hz = 440, amplitude = 8000): Int16Array {
  const n = (16000 * ms) / 1000;
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / 16000)),
  );
}

function rms(pcm: Int16Array): number {
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / Math.max(1, pcm.length));
}

/** Resolves when `predicate` holds, checked on every event the test feeds it. */
function waitFor<T>(
  subscribe: (check: (value: T) => void) => void,
  predicate: (value: T) => boolean,
): Promise<T> {
  return new Promise((resolve) => subscribe((v) => predicate(v) && resolve(v)));
}

async function connect(options: ConstructorParameters<typeof ClientPeer>[0] = {}) {
  const heard: Int16Array[] = [];
  let onHeard: (pcm: Int16Array) => void = () => {};
  const browser = new ClientPeer({
    ...options,
    onAudio: (pcm) => {
      heard.push(pcm);
      onHeard(pcm);
    },
  });
  const server = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1' });
  open.push(browser, server);
  const answer = await server.answer(await browser.offer());
  browser.accept(answer);
  for (const c of browser.candidates()) server.addRemoteCandidate(c, '0');
  server.addRemoteCandidate(null);
  await Promise.all([browser.connected(), server.whenConnected()]);
  return { browser, server, heard, setOnHeard: (f: (pcm: Int16Array) => void) => (onHeard = f) };
}

describe('WebRtcPeer', () => {
  it('answers with a host candidate and a=ssrc, as active DTLS, in Opus', async () => {
    const browser = new ClientPeer();
    const server = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1', publicIp: '203.0.113.9' });
    open.push(browser, server);
    const answer = await server.answer(await browser.offer());
    expect(answer).toMatch(/^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 111/m);
    expect(answer).toMatch(/^a=ssrc:\d+ cname:switchboard-/m);
    expect(answer).toMatch(/^a=setup:active/m);
    expect(answer).toMatch(/^a=candidate:\S+ 1 UDP \d+ 127\.0\.0\.1 \d+ typ host/m);
    expect(answer).toMatch(/^a=candidate:p\S+ 1 UDP \d+ 203\.0\.113\.9 \d+ typ host/m);
    expect(answer).toMatch(/^m=application /m);
  });

  it('carries Opus both ways and decodes it', async () => {
    const { browser, server, heard } = await connect();
    const serverHeard: Int16Array[] = [];
    const loud = new Promise<void>((resolve) =>
      server.onAudio((pcm) => {
        serverHeard.push(pcm);
        if (serverHeard.filter((f) => rms(f) > 2000).length >= 10) resolve();
      }),
    );
    browser.speak(tone(600));
    await loud;
    server.play(tone(600, 880));
    await waitFor<void>(
      (check) => {
        const t = setInterval(() => check(), 5);
        open.push({ close: () => clearInterval(t) });
      },
      () => heard.filter((f) => rms(f) > 2000).length >= 10,
    );
    expect(heard[0]!.length).toBe(320);
    expect(server.stats.packetsOut).toBeGreaterThanOrEqual(10);
    expect(server.stats.packetsIn).toBeGreaterThanOrEqual(10);
  });

  it('holds audio queued while the connection is set up until the track is open, and sends it whole', async () => {
    const heard: Int16Array[] = [];
    const browser = new ClientPeer({ onAudio: (pcm) => heard.push(pcm) });
    const server = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1' });
    open.push(browser, server);
    const answer = await server.answer(await browser.offer());
    // A greeting ready before the media path is (a cached prompt plays at once): one second.
    server.play(tone(1000));
    expect(server.connected).toBe(false);
    browser.accept(answer);
    for (const c of browser.candidates()) server.addRemoteCandidate(c, '0');
    server.addRemoteCandidate(null);
    await Promise.all([browser.connected(), server.whenConnected()]);
    await waitFor<void>(
      (check) => {
        const t = setInterval(() => check(), 5);
        open.push({ close: () => clearInterval(t) });
      },
      () => server.queuedMs === 0 && heard.filter((f) => rms(f) > 2000).length >= 45,
    );
    // Every one of its 50 frames went out, none was dropped on a track not yet open.
    expect(server.stats).toMatchObject({ packetsOut: 50, notOpenDrops: 0 });
  });

  it('chooses PCMU when the browser ranks it first', async () => {
    const browser = new ClientPeer({ prefer: 'PCMU' });
    const server = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1' });
    open.push(browser, server);
    const answer = await server.answer(await browser.offer());
    expect(answer).toMatch(/^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 0\b/m);
    expect(answer).toMatch(/^a=rtpmap:0 PCMU\/8000/m);
  });

  it('takes keys from the data channel and as RFC 4733 events, and answers bad messages there', async () => {
    const { browser, server } = await connect();
    const digits: string[] = [];
    const six = new Promise<void>((resolve) =>
      server.onDigit((d) => {
        digits.push(d);
        if (digits.length === 4) resolve();
      }),
    );
    browser.send('{"type":"dtmf","digits":"12"}');
    browser.send('{"type":"hello"}');
    browser.send('{"type":"dtmf","digits":"x"}');
    await browser.pressKeys('3#');
    await six;
    expect(digits).toEqual(['1', '2', '3', '#']);
    await waitFor<void>(
      (check) => {
        const t = setInterval(() => check(), 5);
        open.push({ close: () => clearInterval(t) });
      },
      () => browser.received.length >= 2,
    );
    expect(browser.received.map((m) => JSON.parse(m).code)).toEqual(['unknown_type', 'invalid_message']);
  });

  it('ends as closed when the browser closes, and not when we close it', async () => {
    const { browser, server } = await connect();
    const ended = new Promise((resolve) => server.onEnd(resolve));
    browser.close();
    expect(await ended).toBe('closed');
    expect(server.connected).toBe(false);

    const second = await connect();
    let told = false;
    second.server.onEnd(() => (told = true));
    second.server.close();
    await second.browser.until('closed');
    expect(told).toBe(false);
  });

  it('refuses offers it cannot answer, and stays ready for a good one', async () => {
    const server = new WebRtcPeer({ clock: systemClock, host: '127.0.0.1' });
    const browser = new ClientPeer();
    open.push(server, browser);
    const offer = await browser.offer();
    await expect(server.answer('hello')).rejects.toMatchObject({ code: 'invalid_sdp' });
    await expect(server.answer(offer.replace(/^a=fingerprint.*$/gm, ''))).rejects.toMatchObject({
      code: 'invalid_sdp',
    });
    expect(() => server.addRemoteCandidate('candidate:1 1 UDP 1 127.0.0.1 9 typ host')).toThrow(
      expect.objectContaining({ code: 'no_offer' }),
    );
    const noAudio = offer.replace(/^m=audio (\d+)/m, 'm=audio 0');
    await expect(server.answer(noAudio)).rejects.toMatchObject({ code: 'no_audio' });
    const noOpus = offer.replace(/^a=rtpmap:111 opus.*$/m, 'a=rtpmap:111 speex/48000');
    await expect(server.answer(noOpus)).rejects.toMatchObject({ code: 'unsupported_codec' });
    const answer = await server.answer(offer);
    await expect(server.answer(offer)).rejects.toMatchObject({ code: 'renegotiation_unsupported' });
    browser.accept(answer);
    for (const c of browser.candidates()) server.addRemoteCandidate(c);
    await Promise.all([browser.connected(), server.whenConnected()]);
  });
});
