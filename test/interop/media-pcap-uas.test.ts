// sipp as UAS with media: our UacLeg calls it with an SDP offer over a bound RtpSession, sipp
// answers with PCMA and plays Debian's g711a.pcap, which our session counts and decodes; what we
// send comes back through sipp's -rtp_echo (so sipp received it); our BYE ends the call.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { createCodec } from '../../src/audio/codecs/registry.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import type { RtpPacket } from '../../src/telephony/media/rtp-packet.js';
import type { MediaReceiver } from '../../src/telephony/media/rtp-receiver.js';
import { RtpSession } from '../../src/telephony/media/rtp-session.js';
import { buildOffer, readAnswer } from '../../src/telephony/sip/sdp/offer.js';
import type { LocalAudio } from '../../src/telephony/sip/sdp/session.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import { UacLeg } from '../../src/telephony/sip/uac-leg.js';
import { freeUdpPort, have, run, settled, until } from '../support/media-harness.js';

/** As media-pcap.test.ts: sipp plays pcaps through a raw socket (root or CAP_NET_RAW). */
const rawSockets =
  process.getuid?.() === 0 ||
  spawnSync('sh', ['-c', 'getcap "$(command -v sipp)" | grep -q cap_net_raw']).status === 0;
const peerTest = (bin: string) => ((have(bin) && rawSockets) || process.env.CI ? it : it.skip);

const SCENARIO = fileURLToPath(new URL('./media-pcap-uas.xml', import.meta.url));
const G711A_PACKETS = 236;
const G711A_SSRC = 0xdee0ee8f;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('interop: sipp UAS with media', () => {
  peerTest('sipp')(
    'our INVITE answered with PCMA, g711a.pcap decoded, our RTP echoed back, our BYE answered',
    async () => {
      const stack = new SipStack({ clock: systemClock, host: '127.0.0.1', port: 0 });
      cleanups.push(() => stack.close());
      const ours = (await stack.listen()).udp!;
      const sippPort = await freeUdpPort();
      const echoPort = await freeUdpPort();
      const sipp = run('sipp', [
        '-sf',
        SCENARIO,
        '-i',
        '127.0.0.1',
        '-p',
        String(sippPort),
        '-mi',
        '127.0.0.1',
        '-mp',
        String(echoPort),
        '-rtp_echo',
        '-t',
        'u1',
        '-m',
        '1',
        '-nostdin',
        '-timeout',
        '120s',
        '-timeout_error',
      ]);
      cleanups.push(() => sipp.kill());
      const failed = sipp.done.then((r) => {
        throw new Error(`sipp ended early (${r.code}): ${r.out.slice(-2000)}`);
      });
      failed.catch(() => undefined); // raced below; the end of the run is awaited on its own
      const wait = (cond: () => boolean) => Promise.race([until(cond), failed]);

      const bySsrc = new Map<number, number>();
      const frames = { decoded: 0 };
      const base = 20000 + 2 * Math.floor(Math.random() * 10000);
      const session = new RtpSession({
        clock: systemClock,
        ports: new RtpPortAllocator(base, base + 999),
        host: '127.0.0.1',
        codec: createCodec('PCMA')!,
        onAudio: (_pcm, info) => void (info.concealed || frames.decoded++),
      });
      cleanups.push(() => session.close());
      // An in-process session (no workers): its receiver is the MediaReceiver.
      const receiver = session.receiver as MediaReceiver;
      const handle = receiver.handle.bind(receiver);
      receiver.handle = (p: RtpPacket, at: number) => {
        bySsrc.set(p.ssrc, (bySsrc.get(p.ssrc) ?? 0) + 1);
        handle(p, at);
      };
      const local: LocalAudio = {
        address: '127.0.0.1',
        port: await session.bind(),
        codecs: ['PCMA', 'PCMU'],
      };
      let answer: ReturnType<typeof readAnswer> | undefined;
      let n = 0;
      const leg = new UacLeg({
        stack,
        localHost: '127.0.0.1',
        localPort: ours,
        newId: () => `pcap${process.pid}x${++n}`,
        offer: () => buildOffer(local, { sessionId: '7', sessionVersion: 1, address: '127.0.0.1' }),
        onAnswer: (sdp) => (answer = readAnswer(sdp, local)),
      });
      const events: string[] = [];
      // sipp may not listen yet when the INVITE leaves: timer A resends it (real clock here).
      leg.invite(
        { uri: `sip:service@127.0.0.1:${sippPort}`, host: '127.0.0.1', port: sippPort, transport: 'udp' },
        { from: 'sb', auth: { username: '', password: '' }, callId: 'pcap-uas' },
        {
          provisional: (s) => events.push(String(s)),
          final: (s) => events.push(`final ${s}`),
          bye: () => events.push('bye'),
          transportError: (e) => events.push(`error ${e?.message ?? ''}`),
        },
      );
      await wait(() => events.some((e) => e.startsWith('final') || e.startsWith('error')));
      expect(events).toContain('final 200');
      expect(answer).toMatchObject({ ok: true, audio: { codec: { name: 'PCMA', pt: 8 } } });
      const a = answer as Extract<typeof answer, { ok: true }>;
      session.setRemote({ address: a.audio.remoteAddress, port: a.audio.remotePort });
      // Listen first: the echo of our own stream is a second SSRC, and the receiver starts over on
      // every change of source, so the two are kept apart in time.
      session.setDirection('inactive');
      session.start();
      await wait(() => (bySsrc.get(G711A_SSRC) ?? 0) >= G711A_PACKETS);
      const pcapFrames = frames.decoded;
      // Then a second of tone from us, which sipp echoes back.
      session.enqueue(
        Int16Array.from({ length: 16000 }, (_, i) =>
          Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)),
        ),
      );
      session.setDirection('sendrecv');
      await wait(() => session.sender.queuedMs === 0);
      session.setDirection('inactive');
      const sent = session.sender.stats.packets;
      const echoed = await Promise.race([settled(() => bySsrc.get(session.ssrc) ?? 0, 500), failed]);
      leg.bye();
      const r = await sipp.done;

      console.log(
        `sipp UAS media: ${bySsrc.get(G711A_SSRC)} PCMA packets in, ${pcapFrames} frames decoded; ` +
          `${sent} sent, ${echoed} echoed back`,
      );
      expect(r.code, r.out.slice(-3000)).toBe(0); // sipp got our ACK, then our BYE, and answered it
      expect(events.slice(0, 2)).toEqual(['180', 'final 200']);
      expect(bySsrc.get(G711A_SSRC)).toBe(G711A_PACKETS);
      expect(pcapFrames).toBeGreaterThan(G711A_PACKETS * 0.9);
      // The echo of our tone decoded too: sound, after the pcap's.
      expect(frames.decoded).toBeGreaterThan(pcapFrames + 25);
      expect(sent).toBeGreaterThanOrEqual(50);
      expect(echoed).toBe(sent);
      expect(session.counters).toMatchObject({ rtpIn: G711A_PACKETS + echoed, stray: 0, malformed: 0 });
    },
    180_000,
  );
});
