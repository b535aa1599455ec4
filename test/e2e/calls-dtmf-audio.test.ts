// DTMF and audio both ways over a real inbound call: sipp plays Debian's g711a.pcap and then an
// RFC 4733 pcap into a speak + dtmf + condition workflow; the digit takes the dtmf node down its
// branch (path, variables and transcript of the session say so), the workflow hangs up (sipp must
// receive our BYE). Our prompt (espeak-ng) goes out as PCMA: a UDP socket of the test, which the
// offer names as sipp's media address, counts it until sipp's own RTP arrives and our session
// latches to that source; our session's counters show sipp's packets arrived.
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { MENU, startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { finishedCall, liveCallRtp, storedEvents, transcript } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
/** RTP packets in g711a.pcap. */
const G711A_PACKETS = 236;

const nodes: CallNode[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const n of nodes.splice(0)) await n.close();
});

interface Sink {
  port: number;
  packets: { pt: number; ssrc: number }[];
}

async function rtpSink(): Promise<Sink> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  const sink: Sink = { port: 0, packets: [] };
  socket.on('message', (msg) => {
    if (msg.length >= 12 && msg[0]! >> 6 === 2)
      sink.packets.push({ pt: msg[1]! & 0x7f, ssrc: msg.readUInt32BE(8) });
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  sink.port = socket.address().port;
  return sink;
}

describe('e2e: DTMF and audio both ways (sipp pcaps)', () => {
  peerTest(
    'dtmf_2833_1.pcap takes the dtmf node to the sales branch; g711a counted in, our prompt counted out',
    async () => {
      const n = await startCallNode();
      nodes.push(n);
      await telephonyWorld(n, { number: '+14155550150', graphs: { menu: MENU } });
      const sink = await rtpSink();
      const scenario = scenarioFile('inbound-dtmf-audio.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550150',
        CALLER: '+4930555000',
        SINK: sink.port,
        DIGIT: 1,
      });
      const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
      const watching = liveCallRtp(n);
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);
      const rtp = await watching;

      const call = await finishedCall(n);
      expect(call).toMatchObject({ direction: 'inbound', hangup_reason: 'workflow_hangup' });

      // The digit took the dtmf node down `success`, and the condition to `sales`.
      const done = (await storedEvents(n)).find((e) => e.type === 'workflow.completed');
      expect(done?.data).toMatchObject({ call_id: call.id, status: 'completed' });
      expect(done?.data.variables).toMatchObject({ choice: '1' });
      expect(done?.data.path).toEqual(['start', 'hello', 'ask', 'route', 'sales', 'bye']);
      const said = (await transcript(n, call.session_id!)).map((m) => `${m.role}: ${m.content}`);
      expect(said).toContain('assistant: Sales it is.');
      expect(said).not.toContain('assistant: We did not hear you.');

      // Both ways: every packet of g711a.pcap (and the digit's events) reached our session; our
      // prompt went out as PCMA under our SSRC and the sink (sipp's SDP address) received it.
      const counters = rtp.counters;
      if (process.env.CALL_FACTS) console.info({ counters, sink: sink.packets.length });
      expect(counters.rtpIn).toBeGreaterThanOrEqual(G711A_PACKETS + 3);
      expect(counters.rtpOut).toBeGreaterThan(50);
      expect(sink.packets.length).toBeGreaterThan(10);
      expect(sink.packets.every((p) => p.ssrc === rtp.ssrc)).toBe(true);
      expect(new Set(sink.packets.map((p) => p.pt))).toEqual(new Set([8]));
      expect(sink.packets.length).toBeLessThan(counters.rtpOut);
    },
    120_000,
  );
});
