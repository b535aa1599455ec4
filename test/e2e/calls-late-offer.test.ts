// Late offer over real SIP (RFC 3264 with RFC 3261 13.2.1): sipp as a carrier sends an INVITE
// without SDP; our 200 must carry our offer (every codec in our order, telephone-event), sipp
// answers in its ACK with PCMA (our second choice) and the call runs on that answer: sipp's
// g711a.pcap counted on our side, our prompt counted as PCMA at the address the answer names
// (a UDP socket of the test at 127.0.0.2, sipp's media port), an RFC 4733 digit taking the menu to
// its `sales` branch, and the workflow's BYE received by sipp. An ACK without an answer: our BYE,
// and the call ends failed / carrier_error without ever connecting. Under CI a missing sipp fails
// instead of skipping.
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { MENU, startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { eventually, liveCallRtp, storedEvents, transcript } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const TIMEOUT = 120_000;
/** RTP packets in g711a.pcap. */
const G711A_PACKETS = 236;
/** Where the answer in sipp's ACK sends our media: loopback, but not sipp's own 127.0.0.1. */
const SINK_IP = '127.0.0.2';

const nodes: CallNode[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const n of nodes.splice(0)) await n.close();
});

/** A UDP socket at SINK_IP:port counting the RTP packets it gets (payload type and SSRC). */
async function rtpSink(port: number): Promise<{ pt: number; ssrc: number }[]> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  const packets: { pt: number; ssrc: number }[] = [];
  socket.on('message', (msg) => {
    if (msg.length >= 12 && msg[0]! >> 6 === 2)
      packets.push({ pt: msg[1]! & 0x7f, ssrc: msg.readUInt32BE(8) });
  });
  await new Promise<void>((r) => socket.bind(port, SINK_IP, () => r()));
  return packets;
}

const inboundCalls = (n: CallNode) =>
  n.store.db.selectFrom('calls').selectAll().where('direction', '=', 'inbound').execute();

describe('e2e: inbound late offer (INVITE without SDP, sipp as the carrier)', () => {
  peerTest(
    'our offer in the 200, sipp’s PCMA answer in the ACK: media both ways on the answer, the digit heard, our BYE',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550170', graphs: { menu: MENU } });
      const mediaPort = await freeUdpPort();
      const sink = await rtpSink(mediaPort);
      const scenario = scenarioFile('inbound-late-offer.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550170',
        CALLER: '+4930555001',
        SINK_IP,
        DIGIT: 1,
      });
      const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, mediaPort));
      const watching = liveCallRtp(n);
      const result = await peer.done;
      // sipp saw our offer (checked by its regexps), and our BYE.
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const rtp = await watching;

      const [call] = await eventually(async () => {
        const rows = await inboundCalls(n);
        return rows[0]?.status === 'completed' ? rows : undefined;
      });
      expect(call).toMatchObject({ hangup_reason: 'workflow_hangup', from_number: '+4930555001' });
      expect(call!.started_at).not.toBeNull();
      const events = (await storedEvents(n)).filter(
        (e) => e.data.id === call!.id || e.data.call_id === call!.id,
      );
      expect(events.filter((e) => e.type.startsWith('call.')).map((e) => e.type)).toEqual([
        'call.started',
        'call.ended',
      ]);
      // The RFC 4733 digit, sent with the answer's telephone-event type, took the menu to `sales`.
      const done = events.find((e) => e.type === 'workflow.completed');
      expect(done?.data.path).toEqual(['start', 'hello', 'ask', 'route', 'sales', 'bye']);
      expect((await transcript(n, call!.session_id!)).map((m) => m.content)).toContain('Sales it is.');

      // Both ways on the answer: sipp's pcap (and the digit's events) reached our session; our
      // prompt went to the answer's address as PCMA, the answer's codec, not our first choice.
      const counters = rtp.counters;
      if (process.env.CALL_FACTS) console.info({ counters, sink: sink.length });
      expect(counters.rtpIn).toBeGreaterThanOrEqual(G711A_PACKETS + 3);
      expect(counters.rtpOut).toBeGreaterThan(50);
      expect(sink.length).toBeGreaterThan(10);
      expect(sink.every((p) => p.ssrc === rtp.ssrc)).toBe(true);
      expect(new Set(sink.map((p) => p.pt))).toEqual(new Set([8]));
      // Once sipp's own RTP came in, ours followed it there (symmetric RTP).
      expect(sink.length).toBeLessThan(counters.rtpOut);
    },
    TIMEOUT,
  );

  peerTest(
    'an ACK without an answer: our BYE at once, the call failed / carrier_error and never connected',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550171', graphs: { menu: MENU } });
      const scenario = scenarioFile('inbound-late-offer-no-answer.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550171',
        CALLER: '+4930555002',
      });
      const result = await sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort())).done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const [call] = await eventually(async () => {
        const rows = await inboundCalls(n);
        return rows[0]?.status === 'failed' ? rows : undefined;
      });
      expect(call).toMatchObject({ hangup_reason: 'carrier_error', started_at: null, duration_seconds: 0 });
      const events = (await storedEvents(n)).filter((e) => e.data.id === call!.id);
      expect(events.map((e) => e.type)).toEqual(['call.ended']);
      expect(events[0]!.data).toMatchObject({ status: 'failed', hangup_reason: 'carrier_error' });
      // No workflow ran: nothing was said.
      expect(await transcript(n, call!.session_id!)).toEqual([]);
    },
    TIMEOUT,
  );
});
