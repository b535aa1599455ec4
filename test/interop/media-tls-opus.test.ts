// baresip (Debian) calling in over TLS with Opus: a self-signed certificate made with the openssl
// CLI, SipStack listening on TLS with it, baresip run headless from a temporary config directory
// (ausine as its microphone, aufile as its speaker, rtp_stats on) dialling sip:…;transport=tls.
// Both sides are asserted: the INVITE came in on TLS, Opus was negotiated, RTP counted each way
// (our session's counters and baresip's own statistics). Two endings: baresip's BYE (sent over
// its TLS connection when it is stopped) ends the dialog on our side; and our BYE, which must go
// back on baresip's own TLS connection (baresip has no certificate, so it cannot accept one),
// closes the call in baresip while it keeps running.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSigned } from '../support/tls-cert.js';
import { MediaHost, freeUdpPort, have, run, until, type MediaCall } from '../support/media-harness.js';

/** Under CI a missing peer fails the test (its spawn fails); elsewhere the test is skipped. */
const peerTest = (...bins: string[]) => (bins.every(have) || process.env.CI ? it : it.skip);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

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

/** baresip's RTP statistics, printed when a call ends (rtp_stats). */
function baresipStats(out: string): { sent: number; received: number; lost: number } | undefined {
  const packets = /audio\s+Transmit:\s+Receive:\s*\npackets:\s+(\d+)\s+(\d+)/.exec(out);
  if (!packets) return undefined;
  // The lost line comes only once RTCP reports went both ways.
  const lost = Number(/\nlost:\s+\d+\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { sent: Number(packets[1]), received: Number(packets[2]), lost };
}

/**
 * Our TLS host, baresip dialling it, and a second of tone each way: resolves once the call is up
 * and media has run both ways. `wire` lists the requests our stack sent and the responses it got,
 * with transport and connection.
 */
async function dialIn() {
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
  const wire: string[] = [];
  const send = host.stack.send.bind(host.stack);
  host.stack.send = (m, to, onError) => {
    if (m.kind === 'request') wire.push(`> ${m.method} ${to.transport} ${to.connectionId ?? 'new'}`);
    return send(m, to, onError);
  };
  const receive = host.stack.transactions.receiveResponse.bind(host.stack.transactions);
  host.stack.transactions.receiveResponse = (res, source) => {
    wire.push(`< ${res.status} ${res.cseq.method} ${source.transport} ${source.connectionId ?? ''}`);
    receive(res, source);
  };

  const output = { text: '' };
  // -v: baresip logs the codec each direction runs; rtp_stats: its packet counts at hang-up.
  const baresip = run(
    'baresip',
    ['-v', '-f', dir, '-e', `/dial sip:service@127.0.0.1:${tls};transport=tls`],
    {
      onOutput: (s) => (output.text += s),
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
  return { c, baresip, output, wait, wire };
}

/** What both endings check: Opus both ways, packets counted on both sides and matching. */
function expectMedia(c: MediaCall, ours: MediaCall['session']['counters'], out: string): void {
  const theirs = baresipStats(out);
  expect(theirs, out.slice(-3000)).toBeDefined();
  console.log(
    `baresip TLS/Opus: we sent ${ours.rtpOut} RTP and received ${ours.rtpIn} (${c.frames.decoded} frames decoded); ` +
      `baresip sent ${theirs!.sent} and received ${theirs!.received} (lost ${theirs!.lost})`,
  );
  expect(out).toMatch(/Set audio encoder: opus 48000Hz 2ch/);
  expect(out).toMatch(/Set audio decoder: opus 48000Hz 2ch/);
  expect(out).toMatch(/Call established: sip:service@127\.0\.0\.1:\d+;transport=tls/);
  // Packets each way, counted on both sides. The counts are taken at slightly different moments
  // (one side's end of the call and the other's), so they may differ by the packets in flight;
  // nothing may be lost.
  expect(ours.rtpIn).toBeGreaterThanOrEqual(100);
  expect(ours.rtpOut).toBeGreaterThanOrEqual(50);
  expect(Math.abs(theirs!.received - ours.rtpOut)).toBeLessThanOrEqual(25);
  expect(Math.abs(theirs!.sent - ours.rtpIn)).toBeLessThanOrEqual(25);
  expect(theirs!.lost).toBe(0);
  expect(ours.malformed).toBe(0);
  // baresip's sine decoded to sound, not silence.
  expect(c.frames.peak).toBeGreaterThan(1000);
  expect(c.session.receiver.counters.unknownPayload).toBe(0);
  expect(c.errors).toEqual([]);
}

describe('interop: baresip over TLS with Opus', () => {
  peerTest('baresip', 'openssl')(
    'baresip dials in over TLS, Opus both ways, its BYE over the TLS connection ends the dialog',
    async () => {
      const { c, baresip } = await dialIn();
      // baresip hangs up on SIGTERM: its BYE comes over its TLS connection, we answer 200 and close
      // the media; it then prints its RTP statistics and exits.
      baresip.kill();
      const r = await baresip.done;
      await until(() => c.byeReceived);
      expectMedia(c, c.countersAtBye!, r.out);
    },
    120_000,
  );

  peerTest('baresip', 'openssl')(
    'baresip dials in over TLS with Opus, we hang up: our BYE goes on its TLS connection and baresip closes the call',
    async () => {
      const { c, baresip, output, wait, wire } = await dialIn();
      const connection = c.source.connectionId!;
      expect(connection).toBeDefined();
      c.leg.bye();
      // baresip answers our BYE on the connection it called in on, and ends the call while it keeps
      // running (wait fails should it exit): its own log says so, then prints its RTP statistics.
      await wait(() => wire.includes(`< 200 BYE TLS ${connection}`));
      await c.session.close();
      const ours = { ...c.session.counters };
      await wait(() => baresipStats(output.text) !== undefined);
      const out = output.text;
      expect(wire).toEqual([`> BYE TLS ${connection}`, `< 200 BYE TLS ${connection}`]);
      expect(out).toMatch(/session closed: Connection reset by peer/);
      expect(out).toMatch(/Call with sip:service@127\.0\.0\.1:\d+;transport=tls[^\n]* terminated \(duration/);
      expect(c.byeReceived).toBe(false);
      expectMedia(c, ours, out);
      baresip.kill();
      await baresip.done;
    },
    120_000,
  );
});
