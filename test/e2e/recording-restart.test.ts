// A recorded call survives its SIP node dying mid-call: `switchboard serve` (a process of its own)
// records an inbound sipp call with audio, is killed with SIGKILL while the call runs, and started
// again on the same data directory. The partial file on disk is a WAV whose header may lag its data
// by up to a second; the restart's recovery pass mends it, the call is closed `server_restart`, and
// GET /calls/{id}/recording serves a playable file of the seconds recorded before the kill.
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  freeSipPort,
  freeTcpPort,
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippArgs,
} from '../support/sipp.js';
import { switchboardCommand } from '../support/fresh-build.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const ROOT = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

/** `switchboard serve` (built, or from source when dist/ is stale); resolves with its banner once it takes calls. */
function serve(env: Record<string, string>): Promise<{ child: ChildProcess; banner: string }> {
  const command = switchboardCommand(['serve']);
  const child = spawn(command.file, command.args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      // The SIP line comes last: the node takes calls (the first start's key is printed before it).
      if (/SIP:\s+127\.0\.0\.1/.test(out)) resolve({ child, banner: out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited (${code}):\n${out.slice(-3000)}`)));
  });
}

/** Sizes a WAV header claims, and what the file holds. */
function wavSizes(bytes: Buffer) {
  return { riff: bytes.readUInt32LE(4), data: bytes.readUInt32LE(40), file: bytes.length };
}

describe('e2e: recording across a SIP node restart', () => {
  peerTest(
    'a call recorded when its node is killed keeps a playable recording after the restart',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-rec-restart-'));
      const httpPort = await freeTcpPort();
      const sipPort = await freeSipPort();
      const rtpMin = 48000 + (process.pid % 20) * 100;
      const env = {
        SWITCHBOARD_DATA_DIR: dir,
        SWITCHBOARD_SECRET_KEY: 'recording-restart-test-key',
        HOST: '127.0.0.1',
        PORT: String(httpPort),
        SIP_HOST: '127.0.0.1',
        SIP_PORT: String(sipPort),
        SIP_DOMAIN: 'sip.test',
        RTP_PORT_MIN: String(rtpMin),
        RTP_PORT_MAX: String(rtpMin + 99),
        MAX_CONCURRENT_CALLS: '100',
        MAX_CALLS_PER_SECOND: '100',
        LOG_LEVEL: 'warn',
      };
      const sink = dgram.createSocket('udp4');
      await new Promise<void>((r) => sink.bind(0, '127.0.0.1', () => r()));
      try {
        const first = await serve(env);
        const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(first.banner)![0];
        const domain = /SIP address: +sip:(\S+)/.exec(first.banner)![1]!;
        const api = async (method: string, url: string, body?: unknown) => {
          const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1${url}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
          return res;
        };
        const data = async (res: Response) => ((await res.json()) as { data: Record<string, unknown> }).data;
        const project = await data(await api('POST', '/projects', { name: 'recorded' }));
        const workflow = await data(
          await api('POST', '/workflows', {
            project_id: project.id,
            name: 'long wait',
            graph: {
              nodes: [
                { id: 'start', type: 'start', config: {} },
                {
                  id: 'ask',
                  type: 'dtmf',
                  config: {
                    prompt: 'Please hold.',
                    num_digits: 1,
                    timeout_seconds: 60,
                    save_to_variable: 'key',
                    speech: false,
                  },
                },
                { id: 'bye', type: 'hangup', config: {} },
              ],
              edges: [
                { source: 'start', target: 'ask' },
                { source: 'ask', source_handle: 'success', target: 'bye' },
                { source: 'ask', source_handle: 'timeout', target: 'bye' },
              ],
            },
          }),
        );
        await api('POST', `/workflows/${String(workflow.id)}/publish`);
        const trunk = await data(
          await api('POST', '/sip-trunks', {
            name: 'carrier',
            provider: 'generic',
            termination_uri: 'sip:127.0.0.1:5999',
            auth_username: 'sb',
            auth_password: 'secret-secret',
            transport: 'udp',
          }),
        );
        const number = await data(
          await api('POST', '/phone-numbers', {
            number: '+14155550193',
            sip_trunk_id: trunk.id,
            project_id: project.id,
          }),
        );
        await api('PATCH', `/phone-numbers/${String(number.id)}`, {
          dispatch_rules: [{ workflow_id: workflow.id, record: true }],
        });

        const scenario = scenarioFile('inbound-dtmf-audio.xml', {
          DOMAIN: domain,
          DIALLED: '+14155550193',
          CALLER: '+4930555009',
          SINK: sink.address().port,
          DIGIT: 1,
        });
        const caller = sipp(sippArgs(`127.0.0.1:${sipPort}`, scenario, await freeUdpPort()));
        // Wait until the recording has a few seconds on disk (our prompt, then sipp's audio).
        const recordings = path.join(dir, 'recordings');
        const recordingFile = () =>
          fs.existsSync(recordings) ? fs.readdirSync(recordings).find((f) => f.endsWith('.wav')) : undefined;
        let callerDone: string | undefined;
        void caller.done.then((r) => (callerDone = r.out));
        for (;;) {
          if (callerDone !== undefined)
            throw new Error(`sipp ended before the kill:\n${callerDone.slice(-3000)}`);
          const f = recordingFile();
          // 16 kHz stereo 16-bit: 64,000 bytes a second; three seconds and a bit.
          if (f && fs.statSync(path.join(recordings, f)).size > 200_000) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        first.child.kill('SIGKILL');
        await new Promise((r) => first.child.once('exit', r));
        caller.kill();
        const file = path.join(recordings, recordingFile()!);
        const callId = path.basename(file, '.wav');
        const killed = wavSizes(fs.readFileSync(file));
        // As the kill left it: the header may trail the data by up to a second, never run past it.
        expect(killed.data).toBeLessThanOrEqual(killed.file - 44);

        // The restart mends the header and closes the call; the recording is served whole.
        const second = await serve(env);
        const mended = wavSizes(fs.readFileSync(file));
        expect(mended.data).toBe(mended.file - 44);
        expect(mended.riff).toBe(mended.file - 8);
        expect(mended.data % 4).toBe(0);
        const call = await data(await api('GET', `/calls/${callId}`));
        expect(call).toMatchObject({ status: 'completed', hangup_reason: 'server_restart' });
        const served = Buffer.from(await (await api('GET', `/calls/${callId}/recording`)).arrayBuffer());
        expect(wavSizes(served)).toEqual(mended);
        expect(served.subarray(0, 4).toString('latin1')).toBe('RIFF');
        // More than three seconds of audio survived the kill.
        expect(mended.data / 64_000).toBeGreaterThan(3);
        second.child.kill('SIGTERM');
        await new Promise((r) => second.child.once('exit', r));
      } finally {
        sink.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
