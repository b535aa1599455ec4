// Nodes that serve no API (roles sip and worker) answer GET /metrics and GET /healthz on
// METRICS_PORT when it is set, with the API's access rule, and nothing else.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { freeTcpPort, freeUdpPort } from '../support/sipp.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function node(role: 'sip' | 'worker', env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-metrics-port-'));
  dirs.push(dir);
  const metricsPort = await freeTcpPort();
  const config = loadConfig({
    SWITCHBOARD_DATA_DIR: dir,
    HOST: '127.0.0.1',
    SIP_HOST: '127.0.0.1',
    SIP_PORT: String(await freeUdpPort()),
    RTP_PORT_MIN: '41000',
    RTP_PORT_MAX: '41099',
    LOG_LEVEL: 'silent',
    METRICS_PORT: String(metricsPort),
    ...env,
  });
  const out = { write: () => true } as unknown as NodeJS.WritableStream;
  const service = await startService(config, role, out);
  return { service, base: `http://127.0.0.1:${metricsPort}` };
}

describe('METRICS_PORT on nodes without the API', () => {
  for (const role of ['sip', 'worker'] as const) {
    it(`a ${role} node answers /metrics and /healthz there, and 404 to anything else`, async () => {
      const { service, base } = await node(role);
      try {
        const metrics = await fetch(`${base}/metrics`);
        expect(metrics.status).toBe(200);
        const text = await metrics.text();
        expect(text).toContain('# TYPE switchboard_calls_active gauge');
        expect(text).toContain('nodejs_eventloop_lag_seconds');
        expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok', store: 'sqlite' });
        const other = await fetch(`${base}/api/v1/projects`);
        expect(other.status).toBe(404);
      } finally {
        await service.close();
      }
    });
  }
});
