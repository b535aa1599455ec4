// Speech in over a real inbound call, and the agent node over the phone: sipp calls in and plays
// Debian's g711a.pcap as the caller's speech into a workflow whose agent node greets (espeak-ng,
// barge-in on), listens and answers through an LLM. Listening is configured as `serve` does it
// (STT_VENDOR_1_BASE_URL → configuredStt → the stt_vendor_1 adapter) against the local fake vendor
// server, which the test drives: once the caller's audio is flowing it reports speech (barge-in
// stops the greeting), then the recognised turn. The agent's model is llm_vendor_1 on the fake
// OpenAI-protocol server; its reply is synthesised and sent as RTP, then the workflow hangs up.
//
// What the test reads: the transcript (greeting, the caller's turn, the reply with latency_ms),
// the STT vendor's audio (the caller's voice, not silence), `stt_seconds` and `tts_characters` in
// usage_events, the call's RTP counters (fewer packets out than the whole greeting: it was cut;
// the reply's packets after the model answered) and sipp's exit code (it must receive our BYE).
//
// The same the other way: POST /calls to sipp as a callee who answers and speaks
// (outbound-speech.xml); the agent hears the callee and answers.
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { createTtsProvider } from '../../src/providers/tts/registry.js';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-servers/index.js';
import { startFakeSttServer, type FakeSttServer } from '../support/fake-voice-servers/stt.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { eventually, finishedCall, liveCallRtp, storedEvents } from './testing/call-reads.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs, sippUasArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

const GREETING =
  'Thank you for calling the Harbour Restaurant. Our kitchen is open from noon until late every day ' +
  'of the week, and on Sundays we serve a long lunch with live music on the terrace. Tables for ' +
  'large parties should be booked at least two days ahead. How can I help you today?';
const HEARD = 'I would like a table for two tonight.';
const REPLY = 'A table for two tonight, certainly. Goodbye.';

const nodes: CallNode[] = [];
const servers: { close(): Promise<void> }[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const n of nodes.splice(0)) await n.close();
  for (const s of servers.splice(0)) await s.close();
});

/** A UDP port the offer names as sipp's media address until our session latches to sipp. */
async function sink(): Promise<number> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return socket.address().port;
}

/** 20 ms packets of `text` as the node's TTS (espeak-ng, voice en) renders it. */
async function packetsOf(n: CallNode, text: string): Promise<number> {
  let samples = 0;
  for await (const pcm of createTtsProvider(n.deps.config).synthesize({ text, voice: 'en' })) {
    samples += pcm.length;
  }
  return Math.floor(samples / 320);
}

/** Root mean square of 16-bit little-endian PCM. */
function rms(bytes: Buffer): number {
  let sum = 0;
  const n = Math.floor(bytes.length / 2);
  for (let i = 0; i < n; i++) sum += bytes.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / Math.max(1, n));
}

async function speechNode(stt: FakeSttServer, llm: FakeLlmServer): Promise<CallNode> {
  const n = await startCallNode({
    configuredStt: true,
    config: {
      STT_VENDOR_1_BASE_URL: stt.baseUrl,
      LLM_VENDOR_1_BASE_URL: llm.baseUrl,
      LLM_VENDOR_1_API_KEY: 'sk-fake',
    },
  });
  nodes.push(n);
  return n;
}

/** A project with an agent on llm_vendor_1 and a workflow: the agent (greeting, one turn), hang up. */
async function agentWorld(n: CallNode, number: string, termination?: string, greeting = GREETING) {
  return telephonyWorld(n, {
    number,
    ...(termination ? { termination } : {}),
    graphs: async (projectId) => {
      const agent = await n.api('POST', '/agents', {
        project_id: projectId,
        name: 'host',
        system_prompt: 'You take restaurant bookings.',
        llm_provider: 'llm_vendor_1',
        llm_model: 'gpt-fake',
      });
      if (agent.status !== 201) throw new Error(JSON.stringify(agent.data));
      return {
        booking: {
          nodes: [
            { id: 'start', type: 'start', config: {} },
            {
              id: 'host',
              type: 'agent',
              config: { agent_id: agent.data.data.id, greeting, max_turns: 1 },
            },
            { id: 'bye', type: 'hangup', config: {} },
          ],
          edges: [
            { source: 'start', target: 'host' },
            { source: 'host', source_handle: 'default', target: 'bye' },
          ],
        },
      };
    },
  });
}

/** The transcript of a session with each message's latency. */
function messagesOf(n: CallNode, sessionId: string) {
  return n.store.db
    .selectFrom('messages')
    .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
    .select(['messages.role', 'messages.content', 'messages.latency_ms'])
    .where('conversations.session_id', '=', sessionId)
    .orderBy('messages.sequence')
    .execute();
}

describe('e2e: speech in over a real call, the agent node over the phone (sipp, fake STT and LLM)', () => {
  peerTest(
    "the caller's g711a speech reaches stt_vendor_1, barges into the greeting, is the user turn; the agent's reply goes out as RTP with latency_ms",
    async () => {
      const stt = await startFakeSttServer();
      servers.push(stt);
      const llm = await startFakeLlmServer('openai');
      servers.push(llm);
      llm.reply({ text: ['A table for two tonight, ', 'certainly. ', 'Goodbye.'] });
      const n = await speechNode(stt, llm);
      await agentWorld(n, '+14155550160');
      const greetingPackets = await packetsOf(n, GREETING);
      const replyPackets = await packetsOf(n, REPLY);

      const scenario = scenarioFile('inbound-speech.xml', {
        DOMAIN: n.sipDomain,
        DIALLED: '+14155550160',
        CALLER: '+4930555111',
        SINK: await sink(),
      });
      const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
      const watching = liveCallRtp(n);

      // The greeting (barge-in on) opened the STT session; the caller's audio flows into it.
      const conn = await stt.nextConnection();
      expect(conn.url.pathname).toBe('/v1/listen');
      expect(conn.url.searchParams.get('encoding')).toBe('linear16');
      await conn.waitForAudio(32_000); // one second at 16 kHz
      const rtp = await watching;
      // The vendor hears the caller speak: the greeting stops at once (its queue is emptied) ...
      const outAtBargeIn = rtp.counters.rtpOut;
      conn.send({ type: 'SpeechStarted', channel: [0], timestamp: 0.2 });
      // ... and recognises the turn.
      conn.result(HEARD, { isFinal: true, speechFinal: true, start: 0.2, duration: 0.8 });

      // The model is asked with the caller's words; its reply goes out as RTP.
      await llm.waitForRequests(1);
      const outAtReply = rtp.counters.rtpOut;
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);

      const call = await finishedCall(n);
      expect(call).toMatchObject({ direction: 'inbound', hangup_reason: 'workflow_hangup' });
      const done = (await storedEvents(n)).find((e) => e.type === 'workflow.completed');
      expect(done?.data.path).toEqual(['start', 'host', 'bye']);

      // The prompt the model got ends with the caller's recognised turn.
      const asked = llm.requests[0]!.body as { messages: { role: string; content: string }[] };
      expect(asked.messages.at(-1)).toMatchObject({ role: 'user', content: HEARD });

      // The transcript: greeting, the caller's turn, the agent's reply with its latency.
      const messages = await messagesOf(n, call.session_id!);
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['assistant', GREETING],
        ['user', HEARD],
        ['assistant', REPLY],
      ]);
      const latency = messages[2]!.latency_ms;
      expect(latency).not.toBeNull();
      expect(Number(latency)).toBeGreaterThanOrEqual(0);

      // What reached the vendor was the caller's voice (g711a.pcap is speech, not silence).
      expect(rms(conn.audio())).toBeGreaterThan(100);

      // Usage: the caller's seconds sent to STT, and the characters spoken (greeting and reply).
      const usage = await eventually(async () => {
        const rows = await n.store.db.selectFrom('usage_events').selectAll().execute();
        return rows.some((r) => r.metric === 'stt_seconds') ? rows : undefined;
      });
      const stt_seconds = usage.filter((r) => r.metric === 'stt_seconds');
      expect(stt_seconds).toHaveLength(1);
      expect(stt_seconds[0]).toMatchObject({ provider: 'stt_vendor_1' });
      const sentSeconds = conn.audio().length / 32_000;
      expect(Number(stt_seconds[0]!.quantity)).toBe(Math.ceil(sentSeconds));
      expect(Number(stt_seconds[0]!.quantity)).toBeGreaterThanOrEqual(1);
      const tts = usage.filter((r) => r.metric === 'tts_characters');
      expect(tts.map((r) => Number(r.quantity))).toEqual([GREETING.length + REPLY.length]);

      // Barge-in: the greeting was cut (the whole call sent fewer packets than the greeting alone
      // has), and nothing of it went out between the caller's speech and the model's answer but
      // what was already in flight; the reply was sent in full after the model answered.
      const counters = rtp.counters;
      if (process.env.CALL_FACTS) {
        console.info({ greetingPackets, replyPackets, outAtBargeIn, outAtReply, counters, sentSeconds });
      }
      expect(counters.rtpOut).toBeLessThan(greetingPackets);
      expect(outAtBargeIn).toBeLessThan(greetingPackets);
      expect(counters.rtpOut - outAtReply).toBeGreaterThanOrEqual(replyPackets - 5);
      expect(counters.rtpIn).toBeGreaterThan(50);
    },
    120_000,
  );

  peerTest(
    'outbound: the callee who answers is heard by the agent (g711a through stt_vendor_1) and gets its reply',
    async () => {
      const stt = await startFakeSttServer();
      servers.push(stt);
      const llm = await startFakeLlmServer('openai');
      servers.push(llm);
      llm.reply({ text: ['A table for two tonight, ', 'certainly. ', 'Goodbye.'] });
      const n = await speechNode(stt, llm);
      const port = await freeUdpPort();
      const world = await agentWorld(n, '+14155550161', `sip:127.0.0.1:${port}`, 'Hello, the Harbour here.');
      const peer = sipp(sippUasArgs(scenarioFile('outbound-speech.xml', {}), port, await freeUdpPort()));
      const res = await n.api('POST', '/calls', {
        project_id: world.projectId,
        workflow_id: world.workflows.booking,
        from: '+14155550161',
        to: '+15551230001',
      });
      expect(res.status, JSON.stringify(res.data)).toBe(201);
      const id = res.data.data.id as string;

      const conn = await stt.nextConnection();
      await conn.waitForAudio(32_000);
      conn.send({ type: 'SpeechStarted', channel: [0], timestamp: 0.2 });
      conn.result(HEARD, { isFinal: true, speechFinal: true, start: 0.2, duration: 0.8 });
      await llm.waitForRequests(1);
      const result = await peer.done;
      expect(result.code, result.out.slice(-3000)).toBe(0);

      const call = await finishedCall(n, id);
      expect(call).toMatchObject({ direction: 'outbound', hangup_reason: 'workflow_hangup' });
      const messages = await messagesOf(n, call.session_id!);
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['assistant', 'Hello, the Harbour here.'],
        ['user', HEARD],
        ['assistant', REPLY],
      ]);
      expect(messages[2]!.latency_ms).not.toBeNull();
      expect(rms(conn.audio())).toBeGreaterThan(100);
      const sttSeconds = await eventually(async () => {
        const rows = await n.store.db
          .selectFrom('usage_events')
          .select(['quantity', 'provider'])
          .where('metric', '=', 'stt_seconds')
          .execute();
        return rows.length > 0 ? rows : undefined;
      });
      expect(sttSeconds).toEqual([
        { quantity: Math.ceil(conn.audio().length / 32_000), provider: 'stt_vendor_1' },
      ]);
    },
    120_000,
  );
});
