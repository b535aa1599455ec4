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
import { startBaresipCallee, toneShare } from '../support/baresip.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { concat } from '../support/generated-audio.js';
import { have } from '../support/media-harness.js';
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

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** baresip listening for TLS (sipPort + 1) with its own certificate, SRTP mandatory, auto-answer. */
async function tlsCarrier() {
  const dir = mkdtempSync(join(tmpdir(), 'baresip-out-tls-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const { baresip, sipPort, cert } = await startBaresipCallee(dir, {
    user: TO,
    toneHz: THEIR_TONE_HZ,
    tls: true,
  });
  cleanups.push(() => baresip.process.kill());
  return { cert, tlsPort: sipPort + 1, baresip };
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
      const { baresip } = carrier;
      await baresip.wait(() => /terminated/i.test(baresip.output.text));
      expect(baresip.output.text).toMatch(/sipsess connect via TLS 127\.0\.0\.1:\d+ --> 127\.0\.0\.1:\d+/);
      expect(baresip.output.text).toMatch(/Call established: sip:\+14155550170@/);
      expect(baresip.output.text).toMatch(/SRTP is Enabled \(cryptosuite=AES_CM_128_HMAC_SHA1_80\)/);
      const theirs = await baresip.heardTone(OUR_TONE_HZ);
      expect(theirs.share, `baresip recorded ${theirs.loudMs} ms loud`).toBeGreaterThan(0.6);
      expect(theirs.loudMs).toBeGreaterThan(1500);
      // What the call heard (decrypted and decoded on our side) is baresip's sine.
      const ours = toneShare(concat(...heard), 16000, THEIR_TONE_HZ);
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
      expect(carrier.baresip.output.text).not.toMatch(/Call established|incoming call/i);
    },
    TIMEOUT,
  );
});
