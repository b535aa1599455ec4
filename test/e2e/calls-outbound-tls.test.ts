// An outbound call (POST /calls) through a `tls` trunk from a node with no certificate of its own
// (no SIP_TLS_CERT: no TLS listener at all), trusting the carrier's private CA through SIP_TLS_CA.
// Debian's baresip plays the carrier: it listens for TLS with a certificate made for the run,
// demands SRTP (`mediaenc=srtp-mand`), answers, sends a 440 Hz sine and records what it decodes.
// The workflow speaks a 700 Hz tone and hangs up. Checked: the call completed over TLS with
// RTP/SAVP, baresip's recording holds our tone, and what the call heard is baresip's sine. A
// node given no SIP_TLS_CA does not trust that CA: the call fails at the handshake.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PhoneChannel } from '../../src/channels/phone-channel.js';
import type { TtsProvider, TtsRequest } from '../../src/providers/tts/tts.types.js';
import { systemClock } from '../../src/shared/clock.js';
import { recordedWav, toneShare, writeBaresipConfig } from '../support/baresip.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { have, run, until } from '../support/media-harness.js';
import { freeUdpPort } from '../support/sipp.js';
import { selfSigned } from '../support/tls-cert.js';
import { callById, eventually } from './testing/call-reads.js';

const peerTest = (have('baresip') && have('openssl')) || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
const FROM = '+14155550170';
const TO = '+15551230001';
const OUR_TONE_HZ = 700;
const THEIR_TONE_HZ = 440;

const SPEAK_TONE = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'tone', type: 'speak', config: { text: 'tone' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'tone' },
    { source: 'tone', target: 'bye' },
  ],
};

/** A TTS that "says" anything as 3 s of a 700 Hz sine, so each side's audio can be told apart. */
const toneTts: TtsProvider = {
  id: 'tone_tts',
  async *synthesize(request: TtsRequest) {
    const rate = request.sampleRate ?? 16000;
    for (let chunk = 0; chunk < 30; chunk++) {
      yield Int16Array.from({ length: rate / 10 }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * OUR_TONE_HZ * (chunk * (rate / 10) + i)) / rate)),
      );
    }
  },
};

function concat(frames: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** baresip listening for TLS (sipPort + 1) with its own certificate, SRTP mandatory, auto-answer. */
async function tlsCarrier() {
  const dir = mkdtempSync(join(tmpdir(), 'baresip-out-tls-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const cert = selfSigned(dir);
  const sipPort = await freeUdpPort();
  writeBaresipConfig(dir, {
    sipPort,
    caPath: cert.certPath,
    certificate: cert.bundlePath,
    toneHz: THEIR_TONE_HZ,
    account: `<sip:${TO}@127.0.0.1;transport=tls>;regint=0;mediaenc=srtp-mand;audio_codecs=PCMU;answermode=auto;medianat=;mwi=no`,
    modules: ['g711.so', 'ausine.so', 'aufile.so', 'srtp.so'],
  });
  const output = { text: '' };
  const baresip = run('baresip', ['-v', '-f', dir], { onOutput: (s) => (output.text += s) });
  cleanups.push(() => baresip.kill());
  const failed = baresip.done.then((r) => {
    throw new Error(`baresip ended early (${r.code}): ${r.out.slice(-3000)}`);
  });
  failed.catch(() => undefined);
  const wait = (cond: () => boolean) => Promise.race([until(cond), failed]);
  await wait(() => /Populated \d+ audio codec/.test(output.text));
  return { dir, cert, tlsPort: sipPort + 1, baresip, output, wait };
}

/** A node with `config` whose `tls` trunk terminates at baresip; what its calls hear is kept. */
async function tlsWorld(tlsPort: number, config: Record<string, string>) {
  const heard: Int16Array[] = [];
  const n: CallNode = await startCallNode({
    config,
    newChannel: ({ media, control }) => {
      media.onAudio((pcm) => void (heard.length < 1000 && heard.push(pcm.slice())));
      return new PhoneChannel({ clock: systemClock, media, control, tts: toneTts, voice: 'en', stt: null });
    },
  });
  cleanups.push(() => n.close());
  const world = await telephonyWorld(n, {
    number: FROM,
    termination: `sip:127.0.0.1:${tlsPort}`,
    graphs: { tone: SPEAK_TONE },
  });
  const patched = await n.api('PATCH', `/sip-trunks/${world.trunkId}`, { transport: 'tls' });
  expect(patched.status, JSON.stringify(patched.data)).toBe(200);
  const dial = async () => {
    const res = await n.api('POST', '/calls', {
      project_id: world.projectId,
      workflow_id: world.workflows.tone,
      from: FROM,
      to: TO,
    });
    expect(res.status, JSON.stringify(res.data)).toBe(201);
    return res.data.data.id as string;
  };
  return { n, heard, dial };
}

describe('e2e: outbound calls over a tls trunk without a certificate of our own', () => {
  peerTest(
    'SIP_TLS_CA trusts the carrier: the call is placed over TLS with SRTP, audio both ways',
    async () => {
      const carrier = await tlsCarrier();
      const { n, heard, dial } = await tlsWorld(carrier.tlsPort, { SIP_TLS_CA: carrier.cert.certPath });
      // No TLS listener on the node: only UDP and TCP.
      expect(n.node.address.tls).toBeUndefined();
      const id = await dial();
      const call = await eventually(async () => {
        const c = await callById(n, id);
        return c?.ended_at ? c : undefined;
      });
      expect(call, JSON.stringify(call)).toMatchObject({
        status: 'completed',
        direction: 'outbound',
        hangup_reason: 'workflow_hangup',
      });
      // baresip took the call over TLS with SRTP (its log names both: the connection we opened,
      // the suite of our first a=crypto) and recorded our tone.
      await carrier.wait(() => /terminated/i.test(carrier.output.text));
      expect(carrier.output.text).toMatch(/sipsess connect via TLS 127\.0\.0\.1:\d+ --> 127\.0\.0\.1:\d+/);
      expect(carrier.output.text).toMatch(/Call established: sip:\+14155550170@/);
      expect(carrier.output.text).toMatch(/SRTP is Enabled \(cryptosuite=AES_CM_128_HMAC_SHA1_80\)/);
      carrier.baresip.kill();
      await carrier.baresip.done;
      const wav = recordedWav(carrier.dir);
      const theirs = toneShare(wav.samples, wav.rate, OUR_TONE_HZ);
      expect(theirs.share, `baresip recorded ${theirs.loudMs} ms loud`).toBeGreaterThan(0.6);
      expect(theirs.loudMs).toBeGreaterThan(1500);
      // What the call heard (decrypted and decoded on our side) is baresip's sine.
      const ours = toneShare(concat(heard), 16000, THEIR_TONE_HZ);
      expect(ours.share, `we heard ${ours.loudMs} ms loud`).toBeGreaterThan(0.6);
      expect(ours.loudMs).toBeGreaterThan(1500);
    },
    TIMEOUT,
  );

  peerTest(
    "without SIP_TLS_CA the carrier's private CA is not trusted: the call fails at the handshake, nothing reaches baresip",
    async () => {
      const carrier = await tlsCarrier();
      const { n, dial } = await tlsWorld(carrier.tlsPort, {});
      const id = await dial();
      const call = await eventually(async () => {
        const c = await callById(n, id);
        return c?.ended_at ? c : undefined;
      });
      expect(call).toMatchObject({ status: 'failed', hangup_reason: 'carrier_error' });
      expect(carrier.output.text).not.toMatch(/Call established|incoming call/i);
    },
    TIMEOUT,
  );
});
