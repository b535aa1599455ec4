import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../events/signer.js';
import { globalFetch } from '../testing/global-fetch.js';
import type { FetchLike } from '../node-types.js';
import { nodeHarness, settle } from '../../../test/support/engine-harness.js';
import { webhookNode } from './webhook.node.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base = '';
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url!.startsWith('/fail')) {
        res.writeHead(503).end('down');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ customer: { name: 'Ada', tier: 'gold' }, orders: [{ id: 'o1' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('webhook', () => {
  it('sends the rendered request and maps response fields into variables', async () => {
    const h = nodeHarness({ variables: { phone: '+15551234567' }, fetch: globalFetch });
    const out = await webhookNode.run(
      h.ctx,
      {
        method: 'POST',
        url: `${base}/lookup?phone={{phone}}`,
        headers: { 'X-Caller': '{{phone}}' },
        body: '{"phone":"{{phone}}"}',
        response_mapping: { customer_name: '$.customer.name', first_order: '$.orders[0].id', nope: '$.x' },
      },
      h.signal,
    );
    expect(out).toEqual({
      handle: 'success',
      outputs: { webhook_status: 200, customer_name: 'Ada', first_order: 'o1', nope: null },
    });
    const req = seen.at(-1)!;
    expect(req).toMatchObject({ method: 'POST', url: '/lookup?phone=+15551234567' });
    expect(req.headers['x-caller']).toBe('+15551234567');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toBe('{"phone":"+15551234567"}');
  });

  it('adds a bearer token from a template', async () => {
    const h = nodeHarness({ variables: { secret_token: 't0k' }, fetch: globalFetch });
    await webhookNode.run(
      h.ctx,
      { url: `${base}/x`, auth: { type: 'bearer', token: '{{secret_token}}' } },
      h.signal,
    );
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer t0k');
  });

  it('signs the body with the platform signer for hmac auth', async () => {
    const h = nodeHarness({ variables: { secret_key: 'whsec_abc' }, fetch: globalFetch });
    await webhookNode.run(
      h.ctx,
      { url: `${base}/x`, body: 'hello', auth: { type: 'hmac', secret_variable: 'secret_key' } },
      h.signal,
    );
    const req = seen.at(-1)!;
    const ts = Number(req.headers['x-service-timestamp']);
    expect(ts).toBe(Math.floor(h.clock.now() / 1000));
    expect(req.headers['x-service-signature']).toBe(signPayload('whsec_abc', ts, 'hello'));
  });

  it('leaves by error on a non-2xx status', async () => {
    const h = nodeHarness({ fetch: globalFetch });
    const out = await webhookNode.run(h.ctx, { url: `${base}/fail` }, h.signal);
    expect(out).toEqual({ handle: 'error', outputs: { webhook_status: 503, webhook_error: 'HTTP 503' } });
  });

  it('leaves by error when the timeout passes on the clock', async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) =>
        init.signal.addEventListener('abort', () => reject(init.signal.reason)),
      );
    const h = nodeHarness({ fetch: hanging });
    const run = webhookNode.run(h.ctx, { url: 'https://example.com', timeout_seconds: 2 }, h.signal);
    await settle();
    h.clock.advance(2000);
    expect(await run).toEqual({ handle: 'error', outputs: { webhook_status: 0, webhook_error: 'timeout' } });
  });

  it('fails the node when the hmac secret variable is empty', async () => {
    const h = nodeHarness({ fetch: globalFetch });
    await expect(
      webhookNode.run(
        h.ctx,
        { url: `${base}/x`, auth: { type: 'hmac', secret_variable: 'secret_k' } },
        h.signal,
      ),
    ).rejects.toThrow(/secret_k/);
  });
});

describe('webhook abort', () => {
  it('rejects with the node signal reason instead of leaving by error', async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) =>
        init.signal.addEventListener('abort', () => reject(init.signal.reason)),
      );
    const h = nodeHarness({ fetch: hanging });
    const run = webhookNode.run(h.ctx, { url: 'https://example.com' }, h.signal);
    await settle();
    h.abort(new Error('force_ended'));
    await expect(run).rejects.toThrow('force_ended');
    expect(h.clock.pending()).toBe(0);
  });
});
