// Upgrade requests: the websocket route still upgrades (its refusals too, test/integration/
// realtime.test.ts); an upgrade to any other path is 404 and closed, plain requests are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApi, type TestApi } from '../../test/support/api.js';
import { storeKinds } from '../../test/support/stores.js';

describe('websocket upgrades', () => {
  let t: TestApi;
  let base: string;
  beforeAll(async () => {
    t = await startTestApi(storeKinds()[0]!);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  afterAll(() => t.close());

  const attempt = (url: string, headers?: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const ws = new WebSocket(url, { headers });
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      ws.on('open', () => {
        ws.close();
        resolve({ status: 101, body: '' });
      });
      ws.on('error', () => undefined);
    });

  it('answers an upgrade to a path without a websocket route 404 in the envelope', async () => {
    for (const path of ['/api/v1/projects', '/healthz', '/nowhere', '/api/v1/sessions/x/realtime/more']) {
      const r = await attempt(`${base}${path}`, { authorization: `Bearer ${t.key}` });
      expect(r, path).toEqual({ status: 404, body: '{"message":"Route not found."}' });
    }
  });

  it('still routes upgrades of the websocket route through Fastify (its own refusal)', async () => {
    const r = await attempt(`${base}/api/v1/sessions/nope/realtime?token=garbage`);
    expect(r.status).toBe(401);
  });

  it('leaves plain requests alone', async () => {
    const res = await fetch(`http://${base.slice(5)}/api/v1/projects`, {
      headers: { authorization: `Bearer ${t.key}` },
    });
    expect(res.status).toBe(200);
  });
});
