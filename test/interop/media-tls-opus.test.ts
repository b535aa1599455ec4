// baresip (Debian) calling in over TLS with Opus: a self-signed certificate made with the openssl
// CLI, SipStack listening on TLS with it, baresip run headless from a temporary config directory
// (ausine as its microphone, aufile as its speaker, rtp_stats on) dialling sip:…;transport=tls.
// Both sides are asserted: the INVITE came in on TLS, Opus was negotiated, RTP counted each way
// (our session's counters and baresip's own statistics), and baresip's BYE (sent over its TLS
// connection when it is stopped) ended the dialog on our side.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaHost, freeUdpPort, have, run, until, type MediaCall } from './media-harness.js';

/** Under CI a missing peer fails the test (its spawn fails); elsewhere the test is skipped. */
const peerTest = (...bins: string[]) => (bins.every(have) || process.env.CI ? it : it.skip);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function selfSigned(dir: string): { cert: string; key: string; certPath: string } {
  const certPath = join(dir, 'cert.pem');
  const keyPath = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath };
}

function baresipConfig(dir: string, sipPort: number, certPath: string): void {
  const lines = [
    'poll_method epoll',
    `sip_listen 127.0.0.1:${sipPort}`,
    // Trust our certificate. baresip 1.0 does not check the server's certificate at all; later
    // versions do when sip_verify_server is on (1.0 ignores the key).
    `sip_cafile ${certPath}`,
    'sip_verify_server yes',
    'call_local_timeout 120',
    'audio_source ausine,440',
    `audio_player aufile,${join(dir, 'heard.wav')}`,
    `audio_alert aufile,${join(dir, 'alert.wav')}`,
    'rtp_stats yes',
    'opus_bitrate 28000',
    'module_path /usr/lib/baresip/modules',
    'module opus.so',
    'module g711.so',
    'module ausine.so',
    'module aufile.so',
    'module_tmp account.so',
    'module_app menu.so',
  ];
  writeFileSync(join(dir, 'config'), lines.join('\n') + '\n');
  writeFileSync(
    join(dir, 'accounts'),
    '<sip:baresip@127.0.0.1;transport=tls>;regint=0;audio_codecs=opus/48000/2;medianat=;mwi=no\n',
  );
}

describe('interop: baresip over TLS with Opus', () => {
  peerTest('baresip', 'openssl')(
    'baresip dials in over TLS, Opus both ways, its BYE over the TLS connection ends the dialog',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'baresip-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const { cert, key, certPath } = selfSigned(dir);
      let call: MediaCall | undefined;
      const host = new MediaHost({
        codecs: ['opus'],
        tls: { port: 0, cert, key },
        onCall: (c) => (call = c),
      });
      cleanups.push(() => host.close());
      const { tls } = await host.listen();
      baresipConfig(dir, await freeUdpPort(), certPath);

      let out = '';
      // -v: baresip logs the codec each direction runs; rtp_stats: its packet counts at hang-up.
      const baresip = run(
        'baresip',
        ['-v', '-f', dir, '-e', `/dial sip:service@127.0.0.1:${tls};transport=tls`],
        {
          onOutput: (s) => (out += s),
        },
      );
      cleanups.push(() => baresip.kill());
      const failed = baresip.done.then((r) => {
        throw new Error(`baresip ended early (${r.code}): ${r.out.slice(-3000)}`);
      });
      failed.catch(() => undefined); // raced below; the end of the run is awaited on its own
      const wait = (cond: () => boolean) => Promise.race([until(cond), failed]);

      await wait(() => call !== undefined && call.leg.acked);
      const c = call!;
      // Signalling: the INVITE came in over TLS, Via and Request-URI say so.
      expect(c.source.transport).toBe('TLS');
      expect(c.invite.via[0].transport).toBe('TLS');
      expect(c.invite.uri).toMatchObject({ scheme: 'sip', port: tls });
      expect(c.negotiated.codec).toMatchObject({ name: 'opus', clockRate: 48000, channels: 2 });

      // Media: a second of tone from us (silence around it), baresip's 440 Hz sine coming in.
      c.session.enqueue(
        Int16Array.from({ length: 16000 }, (_, i) =>
          Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 16000)),
        ),
      );
      await wait(
        () => c.session.sender.queuedMs === 0 && c.session.counters.rtpIn >= 100 && c.frames.decoded >= 50,
      );

      // baresip hangs up on SIGTERM: its BYE comes over its TLS connection, we answer 200 and close
      // the media; it then prints its RTP statistics and exits.
      baresip.kill();
      const r = await baresip.done;
      await until(() => c.byeReceived);
      const ours = c.countersAtBye!;
      const packets = /audio\s+Transmit:\s+Receive:\s*\npackets:\s+(\d+)\s+(\d+)/.exec(r.out);
      expect(packets, r.out.slice(-3000)).not.toBeNull();
      const [txAtBaresip, rxAtBaresip] = packets!.slice(1).map(Number);
      // The lost line comes only once RTCP reports went both ways.
      const lostAtBaresip = Number(/\nlost:\s+\d+\s+(\d+)/.exec(r.out)?.[1] ?? 0);
      console.log(
        `baresip TLS/Opus: we sent ${ours.rtpOut} RTP and received ${ours.rtpIn} (${c.frames.decoded} frames decoded); ` +
          `baresip sent ${txAtBaresip} and received ${rxAtBaresip} (lost ${lostAtBaresip})`,
      );
      // Opus both ways, as baresip set up its codecs.
      expect(out).toMatch(/Set audio encoder: opus 48000Hz 2ch/);
      expect(out).toMatch(/Set audio decoder: opus 48000Hz 2ch/);
      expect(out).toMatch(/Call established: sip:service@127\.0\.0\.1:\d+;transport=tls/);
      // Packets each way, counted on both sides. The counts are taken at slightly different moments
      // (their stop, our BYE), so they may differ by the packets in flight; nothing may be lost.
      expect(ours.rtpIn).toBeGreaterThanOrEqual(100);
      expect(ours.rtpOut).toBeGreaterThanOrEqual(50);
      expect(Math.abs(rxAtBaresip - ours.rtpOut)).toBeLessThanOrEqual(25);
      expect(Math.abs(txAtBaresip - ours.rtpIn)).toBeLessThanOrEqual(25);
      expect(lostAtBaresip).toBe(0);
      expect(ours.malformed).toBe(0);
      // baresip's sine decoded to sound, not silence.
      expect(c.frames.peak).toBeGreaterThan(1000);
      expect(c.session.receiver.counters.unknownPayload).toBe(0);
      expect(c.errors).toEqual([]);
    },
    120_000,
  );
});
