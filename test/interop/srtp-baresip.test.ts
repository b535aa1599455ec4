// baresip (Debian) with `mediaenc=srtp-mand` against our SRTP: SDES keys over TLS, G.711 audio
// both ways, checked on both sides. baresip calling in: our answer is RTP/SAVP with one of its
// a=crypto attributes, its 440 Hz sine decodes on our side, and the WAV it records of what it
// heard holds our 700 Hz tone. baresip called: the call controller's own outbound leg
// (MediaSipLeg) offers RTP/SAVP through a TLS target and baresip answers it. And over UDP the
// same offer is refused (488), since its keys crossed the network in the clear.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { MediaSipLeg } from '../../src/telephony/calls/outbound/media-sip-leg.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import { MediaHost, freeUdpPort, have, until, type MediaCall } from '../support/media-harness.js';
import {
  recordedWav,
  runBaresip,
  startBaresipCallee,
  toneShare,
  writeBaresipConfig,
} from '../support/baresip.js';
import { concat, tone } from '../support/generated-audio.js';
import { selfSigned } from '../support/tls-cert.js';

/** Under CI a missing peer fails the test (its spawn fails); elsewhere the test is skipped. */
const peerTest = (...bins: string[]) => (bins.every(have) || process.env.CI ? it : it.skip);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const OUR_TONE_HZ = 700;
const THEIR_TONE_HZ = 440;
const MODULES = ['g711.so', 'ausine.so', 'aufile.so', 'srtp.so'];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'baresip-srtp-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('interop: baresip with mandatory SRTP', () => {
  peerTest('baresip', 'openssl')(
    'baresip dials in over TLS: RTP/SAVP answered with its key, audio both ways through SRTP',
    async () => {
      const dir = tempDir();
      const { cert, key, certPath } = selfSigned(dir);
      let call: MediaCall | undefined;
      const host = new MediaHost({
        codecs: ['PCMU'],
        srtp: true,
        tls: { port: 0, cert, key },
        onCall: (c) => (call = c),
      });
      cleanups.push(() => host.close());
      const { tls } = await host.listen();
      writeBaresipConfig(dir, {
        sipPort: await freeUdpPort(),
        caPath: certPath,
        toneHz: THEIR_TONE_HZ,
        account:
          '<sip:baresip@127.0.0.1;transport=tls>;regint=0;mediaenc=srtp-mand;audio_codecs=PCMU;medianat=;mwi=no',
        modules: MODULES,
      });
      const baresip = runBaresip(dir, ['-e', `/dial sip:service@127.0.0.1:${tls};transport=tls`]);
      cleanups.push(() => baresip.process.kill());
      const { wait } = baresip;

      await wait(() => call !== undefined && call.leg.acked);
      const c = call!;
      const offer = new TextDecoder().decode(c.invite.body);
      expect(offer).toMatch(/m=audio \d+ RTP\/SAVP /);
      expect(offer).toMatch(/a=crypto:\d+ AES_CM_128_HMAC_SHA1_80 inline:/);
      expect(c.negotiated.srtp?.suite).toMatch(/^AES_(CM_128|256_CM)_HMAC_SHA1_(80|32)$/);
      console.log(
        `baresip offered:\n${offer
          .split('\r\n')
          .filter((l) => l.startsWith('a=crypto'))
          .join('\n')}\nwe took ${c.negotiated.srtp?.suite}`,
      );

      c.session.enqueue(tone(OUR_TONE_HZ, 2000));
      await wait(() => c.session.sender.queuedMs === 0 && c.frames.decoded >= 100);
      baresip.process.kill();
      const r = await baresip.process.done;
      await until(() => c.byeReceived);
      const ours = c.countersAtBye!;
      const srtp = c.session.srtpContexts!;
      console.log(
        `baresip SRTP: we sent ${ours.rtpOut} RTP, received ${ours.rtpIn}; ` +
          `unprotected ${srtp.inbound.counters.unprotected}, dropped ${ours.srtpDropped}`,
      );
      // Every packet it sent authenticated and decrypted. The one drop allowed: baresip sends an
      // RTCP APP packet ("PING") in the clear as its media starts, too short to be SRTCP.
      expect(srtp.inbound.counters).toMatchObject({ authFailed: 0, replayed: 0 });
      expect(ours.srtpDropped).toBe(srtp.inbound.counters.malformed);
      expect(ours.srtpDropped).toBeLessThanOrEqual(1);
      expect(srtp.inbound.counters.unprotected).toBeGreaterThanOrEqual(100);
      expect(r.out).toMatch(/srtp/i);
      // What we decoded is its 440 Hz sine.
      const heard = toneShare(concat(...c.heard), 16000, THEIR_TONE_HZ);
      expect(heard.loudMs).toBeGreaterThan(1000);
      expect(heard.share).toBeGreaterThan(0.8);
      // What it recorded holds our 700 Hz tone: our SRTP decrypted on its side.
      const wav = recordedWav(dir);
      const theirs = toneShare(wav.samples, wav.rate, OUR_TONE_HZ);
      console.log(
        `baresip recorded ${wav.samples.length / wav.rate} s at ${wav.rate} Hz: ${theirs.loudMs} ms loud, ${(theirs.share * 100).toFixed(0)}% at ${OUR_TONE_HZ} Hz`,
      );
      expect(theirs.loudMs).toBeGreaterThan(1500);
      expect(theirs.share).toBeGreaterThan(0.8);
    },
    120_000,
  );

  peerTest('baresip', 'openssl')(
    'we dial baresip through a TLS target: our MediaSipLeg offers RTP/SAVP, baresip answers with a key, audio both ways',
    async () => {
      const dir = tempDir();
      // baresip listens for TLS on the port above its sip_listen one.
      const callee = await startBaresipCallee(dir, { user: 'baresip', toneHz: THEIR_TONE_HZ, tls: true });
      const { baresip, sipPort } = callee;
      cleanups.push(() => baresip.process.kill());
      const { cert, key } = callee.cert;
      const { output, wait } = baresip;

      const stack = new SipStack({
        clock: systemClock,
        host: '127.0.0.1',
        port: 0,
        tls: { port: 0, cert, key },
        tlsClient: { ca: cert },
      });
      cleanups.push(() => stack.close());
      const { tls } = await stack.listen();
      const base = 30000 + 2 * Math.floor(Math.random() * 5000);
      let seq = 0;
      const leg = new MediaSipLeg({
        stack,
        media: {
          clock: systemClock,
          ports: new RtpPortAllocator(base, base + 99),
          bindHost: '127.0.0.1',
          address: '127.0.0.1',
          codecs: ['PCMU'],
        },
        localHost: '127.0.0.1',
        localPort: tls!,
        newId: () => `srtp${++seq}${Date.now()}`,
      });
      const finals: number[] = [];
      let byeFromBaresip = false;
      leg.invite(
        {
          uri: `sip:baresip@127.0.0.1:${sipPort + 1};transport=tls`,
          host: '127.0.0.1',
          port: sipPort + 1,
          transport: 'tls',
        },
        { from: '+14155550100', auth: { username: 'unused', password: 'unused' }, callId: 'srtp-out' },
        {
          provisional: () => undefined,
          final: (status) => finals.push(status),
          bye: () => (byeFromBaresip = true),
          transportError: (err) => finals.push(-1, ...(err ? [0] : [])),
        },
      );
      cleanups.push(() => leg.bye());
      await wait(() => finals.length > 0);
      expect(finals).toEqual([200]);
      expect(leg.offer).toMatch(/m=audio \d+ RTP\/SAVP /);
      const heardFrames: Int16Array[] = [];
      leg.media.onAudio((pcm) => void (heardFrames.length < 1000 && heardFrames.push(pcm.slice())));
      const rtp = leg.rtp!;
      rtp.enqueue(tone(OUR_TONE_HZ, 2000));
      await wait(() => rtp.sender.queuedMs === 0 && heardFrames.length >= 100);
      const srtp = rtp.srtpContexts!;
      console.log(
        `we called baresip: ${rtp.counters.rtpOut} SRTP out, ${rtp.counters.rtpIn} in ` +
          `(${srtp.inbound.counters.unprotected} unprotected, ${rtp.counters.srtpDropped} dropped)`,
      );
      expect(srtp.inbound.counters).toMatchObject({ authFailed: 0, replayed: 0 });
      // baresip starts sending as it sends its 200, so a few packets can beat the answer that
      // keys our session (over TLS, a moment later): those are dropped, unkeyed, and nothing else.
      expect(rtp.counters.srtpDropped).toBeLessThanOrEqual(6);
      // Our side decoded its sine.
      const ours = toneShare(concat(...heardFrames), 16000, THEIR_TONE_HZ);
      expect(ours.loudMs).toBeGreaterThan(1000);
      expect(ours.share).toBeGreaterThan(0.8);
      // We hang up; baresip ends the call and its recording holds our tone.
      leg.bye();
      await wait(() => /terminated \(duration/.test(output.text));
      expect(byeFromBaresip).toBe(false);
      const theirs = await baresip.heardTone(OUR_TONE_HZ);
      console.log(
        `baresip recorded ${theirs.loudMs} ms loud, ${(theirs.share * 100).toFixed(0)}% at ${OUR_TONE_HZ} Hz`,
      );
      expect(theirs.loudMs).toBeGreaterThan(1500);
      expect(theirs.share).toBeGreaterThan(0.8);
    },
    120_000,
  );

  peerTest('baresip', 'openssl')(
    'baresip offering RTP/SAVP over UDP is refused with 488: its keys crossed the network in the clear',
    async () => {
      const dir = tempDir();
      const { certPath } = selfSigned(dir);
      const host = new MediaHost({ codecs: ['PCMU'], srtp: true });
      cleanups.push(() => host.close());
      const { udp } = await host.listen();
      writeBaresipConfig(dir, {
        sipPort: await freeUdpPort(),
        caPath: certPath,
        toneHz: THEIR_TONE_HZ,
        account: '<sip:baresip@127.0.0.1>;regint=0;mediaenc=srtp-mand;audio_codecs=PCMU;medianat=;mwi=no',
        modules: MODULES,
      });
      const baresip = runBaresip(dir, ['-e', `/dial sip:service@127.0.0.1:${udp}`]);
      cleanups.push(() => baresip.process.kill());
      await baresip.wait(() => /488 Not Acceptable Here/.test(baresip.output.text));
      expect(host.calls).toEqual([]);
      baresip.process.kill();
      await baresip.process.done;
    },
    120_000,
  );
});
