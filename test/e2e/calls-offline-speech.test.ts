// Speech in with no speech-to-text key at all, over a real inbound call: sipp calls in and plays a
// pcap of espeak-ng saying "yes" (PCMA RTP, written by the test) into an agent node whose exits
// are `yes` and `no`. Nothing names stt_vendor_1, so the embedded recogniser (soundswallower) hears
// the caller, cut by the VAD, with a grammar built from the agent's exits. The model (a local
// OpenAI-protocol server) is asked with the recognised turn and takes the exit that turn names,
// as a model would; the workflow then speaks on that branch and hangs up.
//
// What the test reads: the request the model got (the recognised words), the execution's path
// (the `yes` branch), the transcript, the latency parts of the agent's turn, and the voice and
// language each prompt was spoken with, before and after a PATCH of the agent (the next call).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EspeakTtsProvider } from '../../src/providers/tts/espeak.js';
import type { TtsProvider } from '../../src/providers/tts/tts.types.js';
import { openAiFrames } from '../support/fake-llm-servers/openai.js';
import { startCallNode, telephonyWorld, type CallNode } from '../support/call-node.js';
import { finishedCall, storedEvents } from './testing/call-reads.js';
import { concat, mix, noise, silence, spoken } from '../support/generated-audio.js';
import { writePcmaPcap } from '../support/rtp-pcap.js';
import { freeUdpPort, haveSipp, scenarioFile, sipp, sippArgs } from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

const nodes: CallNode[] = [];
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close();
  for (const n of nodes.splice(0)) await n.close();
  for (const s of servers.splice(0)) await new Promise<void>((r) => s.close(() => r()));
});

interface Asked {
  messages: { role: string; content: string | null }[];
  tools?: { function: { name: string } }[];
}

/**
 * An OpenAI-protocol model that answers each request by calling the exit tool named by the last
 * user message's first word that is an exit (or says it did not understand).
 */
async function exitChoosingModel(): Promise<{ baseUrl: string; asked: Asked[] }> {
  const asked: Asked[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as Asked;
      asked.push(request);
      const exits = (request.tools ?? []).map((t) => t.function.name);
      const said = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
      const exit = said.split(/\s+/).find((w) => exits.includes(w));
      const frames = openAiFrames(
        exit
          ? { toolCalls: [{ id: 'call_1', name: exit, arguments: '{}' }] }
          : { text: ['Sorry, I did not catch that.'] },
      );
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const f of frames) res.write(f);
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

async function sink(): Promise<number> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return socket.address().port;
}

describe('e2e: the embedded recogniser on a real call (sipp, no STT key)', () => {
  peerTest(
    'a spoken "yes" is heard offline and routes the agent to its yes branch',
    async () => {
      const model = await exitChoosingModel();
      // espeak-ng, with every request's voice and language noted.
      const spoke: string[] = [];
      const espeak = new EspeakTtsProvider();
      const tts: TtsProvider = {
        id: espeak.id,
        synthesize: (r) => {
          spoke.push(`${r.text} | ${r.voice} | ${r.language}`);
          return espeak.synthesize(r);
        },
      };
      const n = await startCallNode({
        configuredStt: true,
        tts,
        config: { LLM_VENDOR_1_BASE_URL: model.baseUrl, LLM_VENDOR_1_API_KEY: 'sk-fake' },
      });
      nodes.push(n);
      let agentId = '';
      await telephonyWorld(n, {
        number: '+14155550170',
        graphs: async (projectId) => {
          const agent = await n.api('POST', '/agents', {
            project_id: projectId,
            name: 'confirm',
            system_prompt: 'Ask the caller to confirm the booking.',
            llm_provider: 'llm_vendor_1',
            llm_model: 'gpt-fake',
            tts_voice: 'en-us',
            stt_language: 'en-US',
          });
          if (agent.status !== 201) throw new Error(JSON.stringify(agent.data));
          agentId = agent.data.data.id as string;
          return {
            confirm: {
              nodes: [
                { id: 'start', type: 'start', config: {} },
                {
                  id: 'ask',
                  type: 'agent',
                  config: {
                    agent_id: agent.data.data.id,
                    greeting: 'Shall I book it?',
                    exits: ['yes', 'no'],
                    // A turn never heard ends the call (and the test, with a clear difference)
                    // instead of leaving it open.
                    silence_timeout_seconds: 15,
                  },
                },
                { id: 'booked', type: 'speak', config: { text: 'Booked.' } },
                { id: 'dropped', type: 'speak', config: { text: 'Not booked.' } },
                { id: 'bye', type: 'hangup', config: {} },
              ],
              edges: [
                { source: 'start', target: 'ask' },
                { source: 'ask', source_handle: 'yes', target: 'booked' },
                { source: 'ask', source_handle: 'no', target: 'dropped' },
                { source: 'ask', source_handle: 'default', target: 'bye' },
                { source: 'booked', target: 'bye' },
                { source: 'dropped', target: 'bye' },
              ],
            },
          };
        },
      });

      // The caller: half a second of a quiet line, "yes", then the line quiet again (long enough
      // for the VAD's end of turn even if a loaded machine delays some packets).
      const word = await spoken('yes');
      const line = mix(noise(500 + word.length / 16 + 3000, 30), concat(silence(500), word));
      const pcap = join(mkdtempSync(join(tmpdir(), 'sb-pcap-')), 'yes.pcap');
      writePcmaPcap(line, pcap);
      const callIn = async (): Promise<void> => {
        const scenario = scenarioFile('inbound-spoken-word.xml', {
          DOMAIN: n.sipDomain,
          DIALLED: '+14155550170',
          CALLER: '+4930555222',
          SINK: await sink(),
          PCAP: pcap,
        });
        const peer = sipp(sippArgs(`127.0.0.1:${n.sipPort}`, scenario, await freeUdpPort()));
        const result = await peer.done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
      };
      await callIn();

      const call = await finishedCall(n);
      expect(call).toMatchObject({ direction: 'inbound', hangup_reason: 'workflow_hangup' });
      // The model was asked with what the embedded recogniser heard, and took that exit.
      expect(model.asked).toHaveLength(1);
      expect(model.asked[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'yes' });
      const done = (await storedEvents(n)).find((e) => e.type === 'workflow.completed');
      expect(done?.data.path).toEqual(['start', 'ask', 'booked', 'bye']);

      const messages = await n.store.db
        .selectFrom('messages')
        .innerJoin('conversations', 'conversations.id', 'messages.conversation_id')
        .select(['messages.role', 'messages.content', 'messages.latency_ms', 'messages.latency'])
        .where('conversations.session_id', '=', call.session_id!)
        .orderBy('messages.sequence')
        .execute();
      expect(messages.map((m) => [m.role, m.content])).toEqual([
        ['assistant', 'Shall I book it?'],
        ['user', 'yes'],
        ['assistant', 'Booked.'],
      ]);
      // The first output after the caller's turn carries the latency and its parts; on a real call
      // every part happened, and they add up to latency_ms.
      const reply = messages[2]!;
      const parts = JSON.parse(reply.latency!) as Record<string, number | null>;
      if (process.env.CALL_FACTS) console.info({ latency_ms: reply.latency_ms, parts });
      expect(Object.keys(parts)).toEqual([
        'endpointing_ms',
        'stt_ms',
        'llm_first_token_ms',
        'tts_first_audio_ms',
        'first_packet_ms',
      ]);
      for (const v of Object.values(parts)) expect(v).toBeGreaterThanOrEqual(0);
      // The VAD waits out its hangover before the turn is over.
      expect(parts.endpointing_ms).toBeGreaterThanOrEqual(400);
      const sum = parts.endpointing_ms! + parts.stt_ms! + parts.llm_first_token_ms!;
      expect(Math.abs(sum - Number(reply.latency_ms))).toBeLessThanOrEqual(2);

      // The agent's voice spoke its greeting and the node after it; a PATCH of the agent applies
      // to the next call.
      expect(spoke).toEqual(['Shall I book it? | en-us | en-US', 'Booked. | en-us | en-US']);
      const patched = await n.api('PATCH', `/agents/${agentId}`, {
        tts_voice: 'en+f3',
        stt_language: 'en-GB',
      });
      expect(patched.status).toBe(200);
      spoke.length = 0;
      await callIn();
      expect(spoke).toEqual(['Shall I book it? | en+f3 | en-GB', 'Booked. | en+f3 | en-GB']);
      expect(model.asked).toHaveLength(2);
      expect(model.asked[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'yes' });
    },
    120_000,
  );
});
