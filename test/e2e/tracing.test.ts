// Traces, as an operator turns them on: `switchboard serve` with OTEL_EXPORTER_OTLP_ENDPOINT set
// sends its spans over OTLP/HTTP to a local receiver this test starts. An API request is one trace
// (route → service → store, continuing a caller's `traceparent`); a sipp call into a workflow is
// another (INVITE → admission and its steps, dispatch among them → the execution → each node →
// the speech it synthesised).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/main.js';
import { startReceiver } from '../support/receiver.js';
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

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number };
  resource: Record<string, unknown>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttribute = { key: string; value: OtlpValue };

function flatten(attrs: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of attrs ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue;
  }
  return out;
}

/** Every span in the OTLP/HTTP JSON bodies received so far. */
function spansOf(bodies: string[]): Span[] {
  const spans: Span[] = [];
  for (const body of bodies) {
    const doc = JSON.parse(body) as {
      resourceSpans: Array<{
        resource: { attributes: OtlpAttribute[] };
        scopeSpans: Array<{
          spans: Array<Omit<Span, 'attributes' | 'resource'> & { attributes: OtlpAttribute[] }>;
        }>;
      }>;
    };
    for (const rs of doc.resourceSpans) {
      const resource = flatten(rs.resource.attributes);
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) spans.push({ ...s, attributes: flatten(s.attributes), resource });
      }
    }
  }
  return spans;
}

const GRAPH = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    { id: 'say', type: 'speak', config: { text: 'Thanks for calling.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'bye' },
  ],
};

describe('e2e: traces over OTLP/HTTP', () => {
  peerTest(
    'an API request and a call arrive at the receiver as span trees',
    async () => {
      const collector = await startReceiver((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-traces-'));
      const httpPort = await freeTcpPort();
      const sipPort = await freeSipPort();
      const rtpMin = 47000 + (process.pid % 20) * 100;
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
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/`,
      });
      let banner = '';
      const out = { write: (c: string) => ((banner += c), true) } as unknown as NodeJS.WritableStream;
      const service = await startService(config, 'all', out);
      let closed = false;
      try {
        const key = /pk_live_[A-Za-z0-9_-]{43}/.exec(banner)![0];
        const domain = /SIP address: +sip:(\S+)/.exec(banner)![1]!;
        const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
        const api = async (
          method: string,
          url: string,
          body?: unknown,
          headers: Record<string, string> = {},
        ) => {
          const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1${url}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              ...(body ? { 'content-type': 'application/json' } : {}),
              ...headers,
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
          });
          const data = (await res.json().catch(() => undefined)) as
            { data: Record<string, unknown> } | undefined;
          if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
          return data!.data;
        };
        // The caller's own trace goes on in ours.
        const project = await api(
          'POST',
          '/projects',
          { name: 'traced' },
          {
            traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`,
          },
        );
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
          number: '+14155550191',
          sip_trunk_id: trunk.id,
          project_id: project.id,
        });
        await api('PATCH', `/phone-numbers/${String(number.id)}`, {
          dispatch_rules: [{ workflow_id: wf.id }],
        });
        const scenario = scenarioFile('inbound-answered.xml', {
          DOMAIN: domain,
          DIALLED: '+14155550191',
          CALLER: '+4930555004',
        });
        const result = await sipp(sippArgs(`127.0.0.1:${sipPort}`, scenario, await freeUdpPort())).done;
        expect(result.code, result.out.slice(-3000)).toBe(0);
        // Closing flushes the spans still waiting in the batch.
        await service.close();
        closed = true;

        const spans = spansOf(collector.received.filter((r) => r.url === '/v1/traces').map((r) => r.body));
        const byId = new Map(spans.map((s) => [s.spanId, s]));
        const parentOf = (s: Span) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);
        const named = (name: string) => spans.filter((s) => s.name === name);

        // The API request: server span → service → store, in the caller's trace.
        const create = named('POST /api/v1/projects')[0]!;
        expect(create).toMatchObject({
          traceId: callerTrace,
          parentSpanId: '00f067aa0ba902b7',
          kind: 2, // server
          attributes: { 'http.route': '/api/v1/projects', 'http.response.status_code': 201 },
          resource: { 'service.name': 'switchboard', 'service.instance.id': config.nodeId },
        });
        const service_ = spans.find((s) => s.name === 'projects.create' && s.parentSpanId === create.spanId);
        expect(service_).toBeDefined();
        const insert = spans.find((s) => s.parentSpanId === service_!.spanId && s.name === 'db INSERT');
        expect(insert?.attributes).toMatchObject({
          'db.system.name': 'sqlite',
          'db.operation.name': 'INSERT',
        });
        expect(String(insert?.attributes['db.query.text'])).toMatch(/^insert into "projects"/);

        // The call: INVITE → admission (its steps, dispatch among them) and the workflow's nodes.
        const invite = named('sip INVITE').find((s) => s.attributes['switchboard.call_id'] !== undefined)!;
        expect(invite).toMatchObject({ kind: 2, attributes: { 'network.transport': 'UDP' } });
        const admission = spans.find((s) => s.name === 'call.admission' && s.parentSpanId === invite.spanId)!;
        const steps = spans.filter((s) => s.parentSpanId === admission.spanId).map((s) => s.name);
        expect(steps).toEqual(
          expect.arrayContaining([
            'admission.workspaceLabel',
            'admission.calledNumber',
            'admission.dispatchRule',
          ]),
        );
        expect(named('admission.dispatchRule')[0]?.attributes).toMatchObject({
          'switchboard.workflow_id': wf.id,
        });
        const lookup = named('admission.calledNumber')[0]!;
        expect(spans.some((s) => s.parentSpanId === lookup.spanId && s.name === 'db SELECT')).toBe(true);
        const execution = named('workflow.execution').find((s) => s.traceId === invite.traceId)!;
        expect(execution.attributes).toMatchObject({
          'switchboard.workflow_id': wf.id,
          'switchboard.channel': 'phone',
        });
        let up: Span | undefined = execution;
        while (up && up.spanId !== invite.spanId) up = parentOf(up);
        expect(up, 'the execution hangs under the INVITE').toBeDefined();
        const children = spans.filter((s) => s.parentSpanId === execution.spanId).map((s) => s.name);
        // The steps in order; the store writes the run makes itself (its steps kept with the
        // transcript) hang under the execution too, and are nothing else.
        expect(children.filter((n) => n.startsWith('node '))).toEqual([
          'node start',
          'node speak',
          'node hangup',
        ]);
        expect(children.filter((n) => !n.startsWith('node ')).every((n) => n.startsWith('db '))).toBe(true);
        const speak = named('node speak')[0]!;
        const tts = spans.find((s) => s.parentSpanId === speak.spanId && s.name === 'tts.synthesize');
        expect(tts?.attributes['switchboard.tts.characters']).toBe('Thanks for calling.'.length);
        // Every span of the call ended in the one trace.
        expect(new Set([invite, admission, execution, speak, tts!].map((s) => s.traceId)).size).toBe(1);
      } finally {
        if (!closed) await service.close();
        await collector.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
