// `serve` with REDIS_URL wires the live-event bus: another node's session.end on switchboard:live
// reaches a session joined on this one, and this node's DELETE /sessions/{id} is published there.
// Runs only against the real Redis (TEST_REDIS_URL); the in-process wiring is in live-events.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { LiveMessage } from '../../src/events/live-bus.js';
import { LIVE_CHANNEL, RedisLiveBus } from '../../src/events/redis-live-bus.js';
import { startService, type RunningService } from '../../src/main.js';
import { silentLogger } from '../../src/shared/logger.js';
import type { Loose } from '../support/call-node.js';
import { freeTcpPort } from '../support/sipp.js';

/** Waits in `ask` for a digit for a minute: longer than the test takes to end it. */
const WAIT_FOR_DIGIT = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: { prompt: 'Press a key.', num_digits: 1, timeout_seconds: 60, save_to_variable: 'key' },
    },
    { id: 'bye', type: 'end', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'bye' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
  ],
};

const redisUrl = process.env.TEST_REDIS_URL;
describe.runIf(Boolean(redisUrl))('serve --role api with REDIS_URL: live events', () => {
  let dir: string;
  let config: Config;
  let service: RunningService;
  let base: string;
  let key: string;
  let observer: RedisLiveBus;
  let mint: () => Promise<{ id: string; join_token: string }>;
  let deleteSession: (id: string) => Promise<number>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-live-'));
    const port = await freeTcpPort();
    config = loadConfig({
      SWITCHBOARD_DATA_DIR: dir,
      PORT: String(port),
      SIP_PORT: '0',
      REDIS_URL: redisUrl,
      SWITCHBOARD_NODE_ID: 'serve-live-test',
      LOG_LEVEL: 'silent',
    });
    let out = '';
    const stream = { write: (c: string) => ((out += c), true) } as unknown as NodeJS.WritableStream;
    service = await startService(config, 'api', stream);
    key = /pk_live_[A-Za-z0-9_-]{43}/.exec(out)![0];
    base = `127.0.0.1:${port}`;
    // Another node on the service's channel (other runs on this Redis may share it: the test
    // looks only at its own sessions' messages).
    observer = new RedisLiveBus({ url: redisUrl!, nodeId: 'observer', logger: silentLogger() });
    expect(observer.channel).toBe(LIVE_CHANNEL);
    await observer.ready();

    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`http://${base}/api/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return {
        status: res.status,
        data: res.status === 204 ? null : ((await res.json()) as { data: Loose }),
      };
    };
    const project = (await api('POST', '/projects', { name: 'live' })).data!.data.id as string;
    const wf = await api('POST', '/workflows', { project_id: project, name: 'wait', graph: WAIT_FOR_DIGIT });
    expect(wf.status).toBe(201);
    expect((await api('POST', `/workflows/${wf.data!.data.id}/publish`)).status).toBe(200);
    mint = async () => {
      const s = await api('POST', '/sessions', { project_id: project, workflow_id: wf.data!.data.id });
      expect(s.status).toBe(201);
      return s.data!.data;
    };
    deleteSession = async (id) => (await api('DELETE', `/sessions/${id}`)).status;
  });

  afterAll(async () => {
    await observer?.close();
    await service?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("another node's session.end ends the session whose socket is on this node", async () => {
    const s = await mint();
    const ws = new WebSocket(`ws://${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}`);
    const frames: Array<Record<string, unknown>> = [];
    const prompted = new Promise<void>((resolve) =>
      ws.on('message', (d) => {
        const f = JSON.parse(String(d)) as Record<string, unknown>;
        frames.push(f);
        if (f.type === 'assistant_text') resolve();
      }),
    );
    const ended = new Promise<Record<string, unknown>>((resolve) =>
      ws.on('message', (d) => {
        const f = JSON.parse(String(d)) as Record<string, unknown>;
        if (f.type === 'ended') resolve(f);
      }),
    );
    await prompted;
    await observer.publish({ kind: 'session.end', session_id: s.id, reason: 'force_ended' });
    expect(await ended).toMatchObject({ end_reason: 'force_ended' });
    ws.close();
  });

  it('DELETE /sessions/{id} on this node is published with its node id', async () => {
    const s = await mint();
    const got = new Promise<LiveMessage>((resolve) =>
      observer.subscribe((m) => {
        if (m.kind === 'session.end' && m.session_id === s.id) resolve(m);
      }),
    );
    expect(await deleteSession(s.id)).toBe(204);
    expect(await got).toMatchObject({
      kind: 'session.end',
      session_id: s.id,
      reason: 'force_ended',
      node_id: 'serve-live-test',
    });
  });
});
