// sipp as UAC with media from the pcaps Debian's sip-tester installs, against SipStack + UasLeg +
// RtpSession: g711a.pcap (PCMA) counted and decoded on our side, our RTP echoed back by sipp's
// -rtp_echo (so sipp received it), and the RFC 2833 pcaps turned into digits once per press, in
// order. SIP over UDP and over TCP (our INFOs then open a connection to sipp's Contact). The
// phases are synchronised with INFO requests, never with sleeps (media-pcap-uac.xml).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MediaHost,
  freeUdpPort,
  have,
  run,
  settled,
  until,
  type MediaCall,
} from '../support/media-harness.js';

/**
 * Under CI a missing peer fails the test (its spawn fails); elsewhere the test is skipped. sipp
 * plays pcaps through a raw socket, which takes root (or CAP_NET_RAW): skipped without, outside CI.
 */
const rawSockets =
  process.getuid?.() === 0 ||
  spawnSync('sh', ['-c', 'getcap "$(command -v sipp)" | grep -q cap_net_raw']).status === 0;
const peerTest = (...bins: string[]) => ((bins.every(have) && rawSockets) || process.env.CI ? it : it.skip);

const SCENARIO = fileURLToPath(new URL('./media-pcap-uac.xml', import.meta.url));
const PCAPS = '/usr/share/sip-tester';
/** RTP packets in g711a.pcap, and the SSRCs of the two recordings. */
const G711A_PACKETS = 236;
const G711A_SSRC = 0xdee0ee8f;
const DTMF_SSRC = 0x0e05384e;

const hosts: MediaHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

describe('interop: sipp media from pcaps', () => {
  for (const transport of ['u1', 't1'] as const) {
    peerTest('sipp')(
      `SIP over ${transport === 'u1' ? 'UDP' : 'TCP'}: g711a.pcap decoded, our RTP echoed back by sipp, dtmf_2833 pcaps as digits once per press`,
      async () => {
        if (process.env.CI) expect(existsSync(`${PCAPS}/g711a.pcap`), 'sip-tester pcaps').toBe(true);
        let call: MediaCall | undefined;
        const host = new MediaHost({ codecs: ['PCMA', 'PCMU'], onCall: (c) => (call = c) });
        hosts.push(host);
        const { udp } = await host.listen();
        const echoPort = await freeUdpPort();
        const sipp = run('sipp', [
          `127.0.0.1:${udp}`,
          '-sf',
          SCENARIO,
          '-t',
          transport,
          '-i',
          '127.0.0.1',
          '-mi',
          '127.0.0.1',
          '-mp',
          String(echoPort),
          '-rtp_echo',
          '-m',
          '1',
          '-nostdin',
          '-timeout',
          '120s',
          '-timeout_error',
        ]);
        const failed = sipp.done.then((r) => {
          throw new Error(`sipp ended early (${r.code}): ${r.out.slice(-2000)}`);
        });
        failed.catch(() => undefined); // raced below; the end of the run is awaited on its own
        const wait = (cond: () => boolean) => Promise.race([until(cond), failed]);

        await wait(() => call !== undefined && call.leg.acked);
        const c = call!;
        expect(c.source.transport).toBe(transport === 'u1' ? 'UDP' : 'TCP');
        expect(c.negotiated.codec).toMatchObject({ name: 'PCMA', pt: 8 });
        expect(c.negotiated.telephoneEvent).toMatchObject({ pt: 101, clockRate: 8000 });
        // Phase 1: listen only, so nothing of ours comes back through the echo yet.
        c.session.setDirection('recvonly');
        await wait(() => (c.packetsBySsrc.get(G711A_SSRC) ?? 0) >= G711A_PACKETS);
        const pcapFrames = { ...c.frames };
        await c.leg.sendInDialog('INFO');

        // Phase 2: a second and a half of tone, which sipp's -rtp_echo sends back to our port.
        const tone = Int16Array.from({ length: 16000 * 1.5 }, (_, i) =>
          Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)),
        );
        const sentBefore = c.session.sender.stats.packets;
        c.session.enqueue(tone);
        c.session.setDirection('sendrecv');
        await wait(() => c.session.sender.queuedMs === 0);
        c.session.setDirection('recvonly');
        const sent = c.session.sender.stats.packets - sentBefore;
        const sentTotal = c.session.sender.stats.packets;
        const echoed = await Promise.race([
          settled(() => c.packetsBySsrc.get(c.session.ssrc) ?? 0, 500),
          failed,
        ]);
        await c.leg.sendInDialog('INFO');

        // Phase 3: twelve presses from the pcaps, each a start, continuations and three end packets.
        await wait(() => c.digitEnds.length >= 12);
        const dtmfPackets = await Promise.race([
          settled(() => c.packetsBySsrc.get(DTMF_SSRC) ?? 0, 300),
          failed,
        ]);
        await c.leg.sendInDialog('INFO');
        const r = await sipp.done;
        await until(() => c.byeReceived);

        // sipp: the call went through, BYE answered by us.
        expect(r.code, r.out.slice(-3000)).toBe(0);
        // Ours: every packet of the pcap accepted and decoded into audio frames.
        expect(c.packetsBySsrc.get(G711A_SSRC)).toBe(G711A_PACKETS);
        expect(c.session.receiver.counters.unknownPayload).toBe(0);
        expect(pcapFrames.decoded).toBeGreaterThan(G711A_PACKETS * 0.9);
        expect(c.errors).toEqual([]);
        // Theirs: what we sent came back (sipp received it), all of it: the tone, and the few frames
        // of silence sent between our answer and the switch to recvonly.
        expect(sent).toBeGreaterThanOrEqual(75);
        expect(echoed).toBe(sentTotal);
        // The digits, in order, once per press; each press's end seen once.
        expect(c.digits.map((d) => d.digit).join('')).toBe('123456789*#0');
        expect(c.digitEnds.map((d) => d.digit).join('')).toBe('123456789*#0');
        expect(dtmfPackets).toBe(12 * 10);
        // The session's own count: every packet of the three streams, nothing stray or malformed.
        expect(c.session.counters).toMatchObject({
          rtpIn: G711A_PACKETS + echoed + dtmfPackets,
          stray: 0,
          malformed: 0,
        });
        console.log(
          `pcap media: ${G711A_PACKETS} PCMA packets in, ${pcapFrames.decoded} frames decoded ` +
            `(${pcapFrames.concealed} concealed); ${sentTotal} sent, ${echoed} echoed back; ` +
            `${dtmfPackets} event packets -> ${c.digits.length} digits`,
        );
      },
      180_000,
    );
  }
});
