// Registration across a whole-process restart: `switchboard serve` (startService, on its embedded
// store in a data directory) registers a trunk with sipp as the registrar; the service is closed
// (its shutdown unregisters: Expires 0) and a new one is started on the same data directory, as
// after a restart of the process. The new process reads the trunk and registers again with a new
// binding (sipp challenges, verifies and grants each, and must see
// both bindings removed). Under CI a missing sipp fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import {
  freeSipPort,
  freeTcpPort,
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippUasArgs,
} from '../support/sipp.js';
import { untilPasses } from '../support/poll.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;
const PASSWORD = 'sipp-secret-1';

function capture() {
  let text = '';
  return {
    stream: { write: (c: string) => ((text += c), true) } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

describe('e2e: switchboard serve registers its trunks again after a restart', () => {
  peerTest(
    'registered, unregistered at shutdown, and registered anew by the next process on the same data',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-reg-serve-'));
      const httpPort = await freeTcpPort();
      const rtpMin = 47000 + (process.pid % 20) * 100;
      const config = loadConfig({
        SWITCHBOARD_DATA_DIR: dir,
        HOST: '127.0.0.1',
        PORT: String(httpPort),
        SIP_HOST: '127.0.0.1',
        SIP_PORT: String(await freeSipPort()),
        SIP_DOMAIN: 'sip.test',
        RTP_PORT_MIN: String(rtpMin),
        RTP_PORT_MAX: String(rtpMin + 99),
        SIP_TRUNK_SYNC_SECONDS: '1',
        LOG_LEVEL: 'silent',
      });
      const registrarPort = await freeUdpPort();
      const args = sippUasArgs(
        scenarioFile('registrar-restart.xml', { PASSWORD }, 'trunks'),
        registrarPort,
        await freeUdpPort(),
      );
      args[args.indexOf('-m') + 1] = '2';
      const registrar = sipp(args);
      const out = capture();
      let service = await startService(config, 'all', out.stream);
      let running = true;
      try {
        const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(out.text())![0];
        const api = async (method: string, url: string, body?: unknown) => {
          const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1${url}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          const data = (await res.json()) as { data: Record<string, unknown> };
          if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
          return data.data;
        };
        const trunk = await api('POST', '/sip-trunks', {
          name: 'carrier',
          provider: 'generic',
          termination_uri: `sip:127.0.0.1:${registrarPort}`,
          auth_username: 'switchboard',
          auth_password: PASSWORD,
          transport: 'udp',
          register: true,
        });
        const read = () => api('GET', `/sip-trunks/${String(trunk.id)}`);
        const first = await untilPasses(async () => {
          const t = await read();
          if (t.registration_status !== 'registered') throw new Error(String(t.registration_status));
          return t;
        });
        expect(first.registration_error).toBeNull();

        await service.close();
        running = false;
        service = await startService(config, 'all', capture().stream);
        running = true;
        // The new process registers at its start (the registrar's second binding below is its).
        await untilPasses(async () => {
          const t = await read();
          if (t.registration_status !== 'registered') throw new Error(String(t.registration_status));
        });
        await service.close();
        running = false;
        // Two bindings, each challenged, verified, granted and removed at its process's shutdown.
        const result = await registrar.done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        expect(result.out).toMatch(/Successful call\s*\|\s*\S+\s*\|\s*2/);
      } finally {
        registrar.kill();
        if (running) await service.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
