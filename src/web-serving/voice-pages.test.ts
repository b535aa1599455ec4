// The browser voice pages served by the API's own app: /join with a strict CSP and the
// microphone allowed, the widget and the module loadable from any site, nothing else of the folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../api/app.js';
import { MemoryRateLimiter } from '../api/rate-limit/rate-limiter.js';
import { loadConfig } from '../config/config.js';
import { FakeClock } from '../shared/clock.js';
import { silentLogger } from '../shared/logger.js';
import { migrateToLatest, openStore, type Store } from '../store/database.js';
import { createWiring, type Wiring } from '../wiring/wiring.js';
import { defaultVoicePagesDir } from './voice-pages.js';

async function appServing(dir: string): Promise<{ app: FastifyInstance; store: Store; wiring: Wiring }> {
  const store = await openStore({ sqlitePath: ':memory:' });
  await migrateToLatest(store.db);
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://voice.example.com', SWITCHBOARD_SECRET_KEY: 'k' });
  const clock = new FakeClock('2026-11-02T10:00:00Z');
  const wiring = createWiring({ config, store, logger: silentLogger(), clock });
  const { app } = await buildApp({
    wiring,
    rateLimiter: new MemoryRateLimiter(100, clock),
    dashboardDir: path.join(dir, 'no-dashboard'),
    voicePagesDir: dir,
  });
  return { app, store, wiring };
}

describe('browser voice pages', () => {
  let dir: string;
  let app: FastifyInstance;
  let store: Store;
  let wiring: Wiring;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-voice-'));
    fs.writeFileSync(path.join(dir, 'join.html'), '<!doctype html><title>call</title>');
    fs.writeFileSync(path.join(dir, 'join.js'), 'void 0');
    fs.writeFileSync(path.join(dir, 'join.css'), 'body{}');
    fs.writeFileSync(path.join(dir, 'widget.js'), 'void 1');
    fs.writeFileSync(path.join(dir, 'switchboard-web.js'), 'export {}');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'no');
    ({ app, store, wiring } = await appServing(dir));
  });
  afterAll(async () => {
    await app.close();
    await wiring.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves /join with a strict CSP, the microphone allowed, never framed, before the dashboard', async () => {
    const res = await app.inject({ method: 'GET', url: '/join' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>call</title>');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self' wss://voice.example.com");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['permissions-policy']).toContain('microphone=(self)');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('serves the widget and the module to any site, and nothing else of the folder', async () => {
    const widget = await app.inject({ method: 'GET', url: '/widget.js' });
    expect(widget.statusCode).toBe(200);
    expect(widget.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(widget.headers['access-control-allow-origin']).toBe('*');
    expect(widget.headers['cross-origin-resource-policy']).toBe('cross-origin');
    for (const file of ['join.js', 'join.css', 'switchboard-web.js']) {
      expect((await app.inject({ method: 'GET', url: `/web-voice/${file}` })).statusCode).toBe(200);
    }
    for (const url of ['/web-voice/secret.txt', '/web-voice/join.html', '/web-voice/..%2fsecret.txt']) {
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
  });

  it('says how to build when the pages are missing', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-voice-empty-'));
    const other = await appServing(empty);
    const res = await other.app.inject({ method: 'GET', url: '/join' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    await other.app.close();
    await other.wiring.close();
    await other.store.close();
  });

  it('finds web-voice/dist of this checkout', () => {
    expect(defaultVoicePagesDir()).toBe(path.resolve(import.meta.dirname, '../../web-voice/dist'));
  });
});
