// The dashboard served by the API's own app: hashed assets cached for good, the app's routes
// falling back to index.html uncached, a strict CSP, and the API's paths left to the API (its
// 404 envelope included).
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
import { contentSecurityPolicy, IMMUTABLE } from './dashboard.js';

const INDEX =
  '<!doctype html><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>';

async function appServing(
  dir: string | null,
): Promise<{ app: FastifyInstance; store: Store; wiring: Wiring }> {
  const store = await openStore({ sqlitePath: ':memory:' });
  await migrateToLatest(store.db);
  const config = loadConfig({ PUBLIC_BASE_URL: 'https://voice.example.com', SWITCHBOARD_SECRET_KEY: 'k' });
  const clock = new FakeClock('2026-11-02T10:00:00Z');
  const wiring = createWiring({ config, store, logger: silentLogger(), clock });
  const { app } = await buildApp({
    wiring,
    rateLimiter: new MemoryRateLimiter(100, clock),
    dashboardDir: dir,
  });
  return { app, store, wiring };
}

describe('dashboard serving', () => {
  let dir: string;
  let app: FastifyInstance;
  let store: Store;
  let wiring: Wiring;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-dashboard-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'assets', 'index-abc123.css'), 'body{}');
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg/>');
    fs.writeFileSync(path.join(os.tmpdir(), 'sb-outside.txt'), 'secret');
    ({ app, store, wiring } = await appServing(dir));
  });
  afterAll(async () => {
    await app.close();
    await wiring.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / without caching, with a CSP that allows no inline script', async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(INDEX);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("connect-src 'self' wss://voice.example.com");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it("falls back to index.html for the app's routes, deep ones and query strings included", async () => {
    for (const url of ['/calls', '/calls/0190a1b2-0000-7000-8000-000000000001', '/telephony/numbers?x=1']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(INDEX);
      expect(res.headers['cache-control'], url).toBe('no-cache');
    }
  });

  it('serves hashed assets with a year of immutable caching and their type', async () => {
    const js = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['cache-control']).toBe(IMMUTABLE);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.body).toBe('console.log(1)');
    const css = await app.inject({ method: 'GET', url: '/assets/index-abc123.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers a missing asset 404 (not the HTML), and never serves a file outside the build', async () => {
    const missing = await app.inject({ method: 'GET', url: '/assets/index-old999.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'Route not found.' });
    for (const url of [
      '/assets/../../sb-outside.txt',
      '/assets/%2e%2e/%2e%2e/sb-outside.txt',
      '/..%2fsb-outside.txt',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.body, url).not.toContain('secret');
    }
  });

  it('serves top-level files of the build (the icon) with a short cache', async () => {
    const res = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('leaves the API alone: unknown API paths keep the 404 envelope, routes and /healthz answer as before', async () => {
    for (const url of ['/api/v1/nope', '/api/v2/projects', '/api/', '/healthz/extra']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ message: 'Route not found.' });
      expect(res.headers['content-security-policy'], url).toBeUndefined();
    }
    expect((await app.inject({ method: 'GET', url: '/api/v1/projects' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toMatchObject({ status: 'ok' });
    const openapi = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(Object.keys(openapi.json().paths).some((p) => !p.startsWith('/api/v1/'))).toBe(false);
  });

  it('says the dashboard is not built (503) when web/dist has no index.html', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-dashboard-empty-'));
    const other = await appServing(empty);
    try {
      const res = await other.app.inject({ method: 'GET', url: '/usage' });
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('npm run build:web');
    } finally {
      await other.app.close();
      await other.wiring.close();
      await other.store.close();
    }
  });

  it('serves nothing at / when told not to (dashboardDir null)', async () => {
    const other = await appServing(null);
    try {
      expect((await other.app.inject({ method: 'GET', url: '/' })).statusCode).toBe(404);
    } finally {
      await other.app.close();
      await other.wiring.close();
      await other.store.close();
    }
  });

  it('points connect-src at ws: for a plain-http base URL', () => {
    expect(contentSecurityPolicy('http://127.0.0.1:8080')).toContain(
      "connect-src 'self' ws://127.0.0.1:8080",
    );
  });
});
