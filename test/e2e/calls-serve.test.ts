// The real service entry (startService, what `switchboard serve` runs) taking a call: the first
// start prints the key and the SIP line, a workflow, trunk and number are set up over HTTP with
// that key, sipp calls in and the workflow answers and hangs up. Then a crash is simulated by
// writing a live call into the store while nothing runs, and the next start closes it with
// `server_restart` before SIP listens.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { openConfiguredStore } from '../../src/store/configured-store.js';
import { asCallTable } from '../support/calls.js';
import {
  freeSipPort,
  freeTcpPort,
  freeUdpPort,
  haveSipp,
  scenarioFile,
  sipp,
  sippArgs,
} from '../support/sipp.js';

const peerTest = haveSipp() || process.env.CI ? it : it.skip;

function capture() {
  let text = '';
  return {
    stream: { write: (c: string) => ((text += c), true) } as unknown as NodeJS.WritableStream,
    text: () => text,
  };
}

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'Thanks for calling {{company}}.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
};

describe('e2e: switchboard serve takes calls', () => {
  peerTest(
    'a sipp call into a workflow set up over HTTP; after a crash the next start closes the live call',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-calls-serve-'));
      const httpPort = await freeTcpPort();
      const sipPort = await freeSipPort();
      const rtpMin = 46000 + (process.pid % 20) * 100;
      const config = loadConfig({
        SWITCHBOARD_DATA_DIR: dir,
        HOST: '127.0.0.1',
        PORT: String(httpPort),
        SIP_HOST: '127.0.0.1',
        SIP_PORT: String(sipPort),
        SIP_DOMAIN: 'sip.test',
        RTP_PORT_MIN: String(rtpMin),
        RTP_PORT_MAX: String(rtpMin + 99),
        LOG_LEVEL: 'silent',
      });
      const out = capture();
      const service = await startService(config, 'all', out.stream);
      let closed = false;
      try {
        const banner = out.text();
        expect(banner).toContain(`SIP:        127.0.0.1 udp+tcp ${sipPort}, RTP ${rtpMin}-${rtpMin + 99}`);
        expect(banner).not.toContain('not routed');
        const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(banner)![0];
        const domain = /SIP address: +sip:(\S+)/.exec(banner)![1]!;
        const api = async (method: string, url: string, body?: unknown) => {
          const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1${url}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          const data = (await res.json().catch(() => undefined)) as
            { data: Record<string, unknown> } | undefined;
          if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
          return data!.data;
        };
        const project = await api('POST', '/projects', { name: 'front desk' });
        const wf = await api('POST', '/workflows', {
          project_id: project.id,
          name: 'greeting',
          graph: GRAPH,
        });
        await api('POST', `/workflows/${String(wf.id)}/publish`);
        const trunk = await api('POST', '/sip-trunks', {
          name: 'carrier',
          provider: 'generic',
          termination_uri: 'sip:127.0.0.1:5999',
          auth_username: 'switchboard',
          auth_password: 'secret-secret',
          transport: 'udp',
        });
        const number = await api('POST', '/phone-numbers', {
          number: '+14155550190',
          sip_trunk_id: trunk.id,
          project_id: project.id,
        });
        await api('PATCH', `/phone-numbers/${String(number.id)}`, {
          dispatch_rules: [{ workflow_id: wf.id, variables: { company: 'Acme' } }],
        });

        const scenario = scenarioFile('inbound-answered.xml', {
          DOMAIN: domain,
          DIALLED: '+14155550190',
          CALLER: '+4930555003',
        });
        const result = await sipp(sippArgs(`127.0.0.1:${sipPort}`, scenario, await freeUdpPort())).done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        let calls: Array<Record<string, unknown>> = [];
        for (;;) {
          calls = (
            (await fetch(`http://127.0.0.1:${httpPort}/api/v1/calls?direction=inbound`, {
              headers: { authorization: `Bearer ${key}` },
            }).then((r) => r.json())) as { data: Array<Record<string, unknown>> }
          ).data;
          if (calls[0]?.status === 'completed') break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(calls[0]).toMatchObject({
          direction: 'inbound',
          status: 'completed',
          hangup_reason: 'workflow_hangup',
          from: '+4930555003',
          to: '+14155550190',
          workflow_id: wf.id,
          workflow_version: 1,
        });
        await service.close();
        closed = true;

        // A crash with a call up: its row stays in_progress, its session active.
        const { store } = await openConfiguredStore(config);
        const done = asCallTable(await store.db.selectFrom('calls').selectAll().executeTakeFirstOrThrow());
        const staleId = `${done.id.slice(0, -4)}beef`;
        await store.db
          .insertInto('calls')
          .values({
            ...done,
            id: staleId,
            status: 'in_progress',
            hangup_reason: null,
            ended_at: null,
            session_id: null,
            duration_seconds: null,
            sip_call_id: 'stale@carrier',
          })
          .execute();
        await store.close();

        const again = await startService(config, 'sip', capture().stream);
        await again.close();
        const { store: after } = await openConfiguredStore(config);
        const stale = await after.db
          .selectFrom('calls')
          .selectAll()
          .where('id', '=', staleId)
          .executeTakeFirstOrThrow();
        const ended = await after.db
          .selectFrom('webhook_events')
          .select('body')
          .where('type', '=', 'call.ended')
          .execute();
        await after.close();
        expect(stale).toMatchObject({ status: 'completed', hangup_reason: 'server_restart' });
        expect(ended.some((e) => (JSON.parse(e.body) as { data: { id: string } }).data.id === staleId)).toBe(
          true,
        );
      } finally {
        if (!closed) await service.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
