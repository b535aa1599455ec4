// What the caller hears while a dial node's leg rings, over real RTP: sipp calls in with an SDP
// offer that names a UDP port of this test, so the test receives the caller's RTP itself (sipp
// records none), decodes it (PCMU) and measures it with Goertzel. The dialled party is a second
// sipp: it rings (180) and answers or is busy, or sends a 183 with SDP and plays a 1 kHz tone as
// early media. The workflow dials and hangs up whatever the outcome, so the caller's audio is only
// what the ringing made of it.
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { goertzelPurity } from '../../src/audio/beep.js';
import { ulawToLinear } from '../../src/audio/codecs/g711.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { writePcmaPcap } from '../support/rtp-pcap.js';
import {
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippArgs,
  sippUasArgs,
  type Peer,
} from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

const nodes: CallNode[] = [];
const peers: Peer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) p.kill();
  for (const s of sockets.splice(0)) s.close();
  for (const n of nodes.splice(0)) await n.close();
});

const DIAL_THEN_HANG_UP = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'dial', type: 'dial', config: { to: '+15551230000', ring_timeout_seconds: 20 } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'dial' },
    ...['answered', 'no_answer', 'busy', 'failed'].map((h) => ({
      source: 'dial',
      source_handle: h,
      target: 'bye',
    })),
  ],
};

/** The caller's media as it arrived: 8 kHz samples of each 20 ms packet, in sequence order. */
async function rtpSink(): Promise<{ port: number; frames: () => Int16Array[] }> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  const packets = new Map<number, Int16Array>();
  let first: number | null = null;
  socket.on('message', (msg) => {
    if (msg.length < 12 || (msg[1]! & 0x7f) !== 0) return; // PCMU audio only
    const seq = msg.readUInt16BE(2);
    first ??= seq;
    const payload = msg.subarray(12);
    packets.set(
      (seq - first) & 0xffff,
      Int16Array.from(payload, (c) => ulawToLinear(c)),
    );
  });
  const port = await freeUdpPort();
  await new Promise<void>((r) => socket.bind(port, '127.0.0.1', () => r()));
  return {
    port,
    frames: () => [...packets.entries()].sort((a, b) => a[0] - b[0]).map(([, pcm]) => pcm),
  };
}

const peak = (x: Int16Array): number => x.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

/** Runs of loud packets (start index, length), the caller's silence between them. */
function loudRuns(frames: Int16Array[]): Array<{ at: number; length: number }> {
  const runs: Array<{ at: number; length: number }> = [];
  frames.forEach((f, i) => {
    if (peak(f) < 1000) return;
    const last = runs.at(-1);
    if (last && last.at + last.length === i) last.length++;
    else runs.push({ at: i, length: 1 });
  });
  return runs;
}

/** Goertzel purity of each frequency over `frames` joined (1 = all the energy there). */
function spectrum(frames: Int16Array[], freqs: number[]): Record<number, number> {
  const x = new Int16Array(frames.length * 160);
  frames.forEach((f, i) => x.set(f.subarray(0, 160), i * 160));
  let energy = 0;
  for (const v of x) energy += v * v;
  return Object.fromEntries(freqs.map((f) => [f, goertzelPurity(x, f, 8000, energy)]));
}

async function world(calleeScenario: string, vars: Record<string, string | number>) {
  const n = await startCallNode();
  nodes.push(n);
  const calleePort = await freeUdpPort();
  const callee = sipp(sippUasArgs(scenarioFile(calleeScenario, vars), calleePort, await freeUdpPort()));
  peers.push(callee);
  await telephonyWorld(n, {
    number: '+14155550200',
    termination: `sip:127.0.0.1:${calleePort}`,
    graphs: { dial: DIAL_THEN_HANG_UP },
  });
  const sink = await rtpSink();
  const caller = sipp(
    sippArgs(
      `127.0.0.1:${n.sipPort}`,
      scenarioFile('inbound-ringback-caller.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550200',
        CALLER: '+4930555004',
        RTP_PORT: sink.port,
      }),
      await freeUdpPort(),
    ),
  );
  peers.push(caller);
  const [c, d] = await Promise.all([caller.done, callee.done]);
  expect(c.code, c.out.slice(-3000)).toBe(0);
  expect(d.code, d.out.slice(-3000)).toBe(0);
  return sink.frames();
}

describe('e2e: ringback and early media while a dial leg rings (sipp both ends)', () => {
  peerTest(
    '180 then answered: the caller hears 440 + 480 Hz for 2 s, and nothing once answered',
    async () => {
      // Rings 3 s (tone 0–2 s, off from 2 s), then a 5 s bridge: an unstopped cadence would sound again at 6 s.
      const frames = await world('outbound-ring-answer.xml', { RING_MS: 3000, TALK_MS: 5000 });
      const runs = loudRuns(frames);
      expect(runs, JSON.stringify(runs)).toHaveLength(1);
      // 2 s on = 100 packets of 20 ms (a packet or two either side for the start and the edges).
      expect(runs[0]!.length).toBeGreaterThanOrEqual(97);
      expect(runs[0]!.length).toBeLessThanOrEqual(102);
      const tone = spectrum(frames.slice(runs[0]!.at + 5, runs[0]!.at + 95), [440, 480, 350, 620, 1000]);
      expect(tone[440]).toBeGreaterThan(0.35);
      expect(tone[480]).toBeGreaterThan(0.35);
      expect(tone[440]! + tone[480]!).toBeGreaterThan(0.85);
      for (const f of [350, 620, 1000]) expect(tone[f]).toBeLessThan(0.05);
      // The call went on well past the answer (the bridge's 5 s): silence there.
      expect(frames.length - (runs[0]!.at + runs[0]!.length)).toBeGreaterThan(250);
    },
  );

  peerTest('180 then 486 mid-tone: on 2 s, off 4 s, on again, cut at the busy', async () => {
    const frames = await world('outbound-ring-busy.xml', { RING_MS: 7000 });
    const runs = loudRuns(frames);
    expect(runs, JSON.stringify(runs)).toHaveLength(2);
    const [a, b] = [runs[0]!, runs[1]!];
    expect(a.length).toBeGreaterThanOrEqual(97);
    expect(a.length).toBeLessThanOrEqual(102);
    // 4 s off between the two: 200 packets.
    expect(b.at - (a.at + a.length)).toBeGreaterThanOrEqual(197);
    expect(b.at - (a.at + a.length)).toBeLessThanOrEqual(203);
    // The 486 came about 1 s into the second 2 s: the tone stopped there, not at its end.
    expect(b.length).toBeGreaterThan(10);
    expect(b.length).toBeLessThan(90);
    const second = spectrum(frames.slice(b.at + 2, b.at + b.length - 2), [440, 480, 1000]);
    expect(second[440]! + second[480]!).toBeGreaterThan(0.85);
  });

  peerTest("183 with SDP: the caller hears the far end's early media (1 kHz), not our tone", async () => {
    const pcap = `${mkdtempSync(`${tmpdir()}/early-`)}/tone.pcap`;
    // 2 s of 1 kHz at about −10 dBFS, PCMA as carriers send it (the caller's leg is PCMU).
    writePcmaPcap(
      Int16Array.from({ length: 32000 }, (_, i) =>
        Math.round(10000 * Math.sin((2 * Math.PI * 1000 * i) / 16000)),
      ),
      pcap,
    );
    const frames = await world('outbound-early-media.xml', { PCAP: pcap, RING_MS: 3000 });
    const runs = loudRuns(frames);
    const loud = runs.reduce((s, r) => s + r.length, 0);
    expect(loud, JSON.stringify(runs)).toBeGreaterThanOrEqual(90);
    const early = runs.find((r) => r.length >= 50)!;
    const heard = spectrum(frames.slice(early.at + 5, early.at + early.length - 5), [1000, 440, 480]);
    expect(heard[1000]).toBeGreaterThan(0.85);
    expect(heard[440]! + heard[480]!).toBeLessThan(0.05);
    // Our tone may have sounded only until the first early packet (the 183 and its RTP arrive
    // together on loopback): a few packets at most, and never after.
    const ours = frames.filter((f) => {
      const s = spectrum([f], [440, 480]);
      return peak(f) >= 1000 && s[440]! + s[480]! > 0.5;
    });
    expect(ours.length).toBeLessThanOrEqual(10);
  });
});
