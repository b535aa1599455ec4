// Calls benchmark (issue 6): inbound calls from sipp through admission and dispatch into a
// speak + dtmf + hangup workflow, on the node the service runs (TelephonyNode + SessionHost on a
// SQLite file in WAL mode, prompts from espeak-ng through the prompt cache), media both ways.
//
// Part 1, set-up rate: sipp calls in at CALLS_BENCH_RATE calls/s (default 120) for
//   CALLS_BENCH_CALLS calls, each hung up by sipp after 1 s while our prompt plays. Prints the
//   rate reached with no failed call and INVITE-to-200 p50/p99 (sipp's response-time trace), next
//   to the same sipp client against sipp's own UAS in the same run (the baseline, which does no
//   work at all: the ratio shows what admission, dispatch, the store and the media set-up cost).
// Part 2, held calls: sipp calls in at CALLS_BENCH_HOLD_RATE calls/s (default 40) and each call
//   plays Debian's g711a.pcap (236 PCMA packets, about 7.5 s) then an RFC 4733 "1"; the workflow
//   hears the digit and hangs up (our BYE). Prints the peak of concurrent calls held, the packets
//   each way and the loss of sipp's audio as our receivers count it (RFC 3550 expected vs
//   received, plus packets dropped as late), and how many calls took the digit's branch.
//
//   npm run bench:calls   (CALLS_BENCH_CALLS=3000, CALLS_BENCH_HOLD_CALLS=1000, CALLS_BENCH_PART=1|2)
// Targets on a 2-core machine: ≥ 100 calls/s set up, ≥ 300 concurrent calls held with < 1% loss,
// INVITE-to-200 p99 < 20 ms.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/api/app.js';
import { MemoryRateLimiter } from '../src/api/rate-limit/rate-limiter.js';
import { loadConfig } from '../src/config/config.js';
import type { ServiceDeps } from '../src/modules/context.js';
import { SessionHost } from '../src/modules/sessions/session-host.js';
import { createWorkspace } from '../src/modules/workspaces/workspaces.service.js';
import { createLlmRegistry } from '../src/providers/llm/registry.js';
import { systemClock } from '../src/shared/clock.js';
import { newId } from '../src/shared/ids.js';
import { silentLogger } from '../src/shared/logger.js';
import { SecretBox } from '../src/shared/secret-box.js';
import { deriveServerKeys } from '../src/shared/server-key.js';
import { migrateToLatest, openStore } from '../src/store/database.js';
import { TelephonyNode } from '../src/telephony/calls/telephony-node.js';
import type { RtpSession } from '../src/telephony/media/rtp-session.js';

const PART = process.env.CALLS_BENCH_PART;
const RATE = Number(process.env.CALLS_BENCH_RATE ?? 120);
const CALLS = Number(process.env.CALLS_BENCH_CALLS ?? 3000);
const HOLD_RATE = Number(process.env.CALLS_BENCH_HOLD_RATE ?? 40);
const HOLD_CALLS = Number(process.env.CALLS_BENCH_HOLD_CALLS ?? 1000);
const PCAPS = '/usr/share/sip-tester';
const DIALLED = '+14155550100';

/** Speak, collect one digit, say which branch, hang up. */
const WORKFLOW = {
  nodes: [
    { id: 'start', type: 'start', config: {} },
    {
      id: 'ask',
      type: 'dtmf',
      config: {
        prompt: 'Welcome. Press 1 for sales.',
        num_digits: 1,
        timeout_seconds: 30,
        save_to_variable: 'choice',
      },
    },
    { id: 'thanks', type: 'speak', config: { text: 'Thank you.' } },
    { id: 'bye', type: 'hangup', config: {} },
  ],
  edges: [
    { source: 'start', target: 'ask' },
    { source: 'ask', source_handle: 'success', target: 'thanks' },
    { source: 'ask', source_handle: 'timeout', target: 'bye' },
    { source: 'thanks', target: 'bye' },
  ],
};

const SETUP_SCENARIO = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="bench: set up a call, hang up after 1 s">
  <send retrans="500" start_rtd="invite">
    <![CDATA[

      INVITE sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:+4930555[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:sipp@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=carrier 1 1 IN IP[local_ip_type] [local_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP 0 101
      a=rtpmap:0 PCMU/8000
      a=rtpmap:101 telephone-event/8000

    ]]>
  </send>
  <recv response="100" optional="true"></recv>
  <recv response="180" optional="true"></recv>
  <recv response="200" rtd="invite"></recv>
  <send>
    <![CDATA[

      ACK sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:+4930555[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 1 ACK
      Max-Forwards: 70
      Content-Length: 0

    ]]>
  </send>
  <pause milliseconds="1000"/>
  <send retrans="500">
    <![CDATA[

      BYE sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:+4930555[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 2 BYE
      Max-Forwards: 70
      Content-Length: 0

    ]]>
  </send>
  <recv response="200" crlf="true"></recv>
</scenario>
`;

const HOLD_SCENARIO = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<scenario name="bench: a held call with g711a audio and an RFC 4733 digit">
  <send retrans="500">
    <![CDATA[

      INVITE sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:+4930777[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:sipp@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=carrier 1 1 IN IP[local_ip_type] [local_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP 8 101
      a=rtpmap:8 PCMA/8000
      a=rtpmap:101 telephone-event/8000
      a=fmtp:101 0-15

    ]]>
  </send>
  <recv response="100" optional="true"></recv>
  <recv response="180" optional="true"></recv>
  <recv response="200"></recv>
  <send>
    <![CDATA[

      ACK sip:${DIALLED}@__DOMAIN__ SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:+4930777[call_number]@carrier.test>;tag=[pid]SIPpTag00[call_number]
      To: <sip:${DIALLED}@__DOMAIN__>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: 1 ACK
      Max-Forwards: 70
      Content-Length: 0

    ]]>
  </send>
  <nop><action><exec play_pcap_audio="${PCAPS}/g711a.pcap"/></action></nop>
  <pause milliseconds="7500"/>
  <nop><action><exec play_pcap_audio="${PCAPS}/dtmf_2833_1.pcap"/></action></nop>
  <recv request="BYE"></recv>
  <send>
    <![CDATA[

      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      Content-Length: 0

    ]]>
  </send>
</scenario>
`;

interface SippRun {
  code: number | null;
  out: string;
  seconds: number;
  dir: string;
}

function runSipp(args: string[], cwd: string): Promise<SippRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const p = spawn('sipp', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-30_000)));
    p.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-30_000)));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, seconds: (performance.now() - started) / 1000, dir: cwd }));
  });
}

/** Cumulative column of sipp's final statistics screen. */
function stat(out: string, label: string): number {
  const last = out
    .split('\n')
    .filter((l) => l.includes(label))
    .at(-1)
    ?.split('|');
  return last ? Number(last[2]?.trim() ?? NaN) : NaN;
}

/** Response times (ms, sipp's 1 ms tick) written by -trace_rtt: `date_ms;response_time_ms;rtd_name`. */
function responseTimes(dir: string): number[] {
  const file = readdirSync(dir).find((f) => f.endsWith('_rtt.csv'));
  if (!file) return [];
  return readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split(';'))
    .filter((c) => c.length >= 3)
    .map((c) => Number(c[1]))
    .filter((v) => Number.isFinite(v));
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Packets in a pcap file (classic libpcap format, either byte order). */
function pcapPackets(file: string): number {
  const b = readFileSync(file);
  const little = b.readUInt32LE(0) === 0xa1b2c3d4 || b.readUInt32LE(0) === 0xa1b23c4d;
  let at = 24;
  let n = 0;
  while (at + 16 <= b.length) {
    const included = little ? b.readUInt32LE(at + 8) : b.readUInt32BE(at + 8);
    at += 16 + included;
    n++;
  }
  return n;
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function sippArgs(target: string, scenario: string, dir: string, rate: number, calls: number): string[] {
  const file = path.join(dir, 'scenario.xml');
  writeFileSync(file, scenario);
  return [
    target,
    '-sf',
    file,
    '-t',
    'u1',
    '-i',
    '127.0.0.1',
    '-mi',
    '127.0.0.1',
    '-r',
    String(rate),
    '-m',
    String(calls),
    '-l',
    String(Math.max(1000, rate * 20)),
    '-nostdin',
    '-timeout',
    '300s',
    '-trace_rtt',
    '-rtt_freq',
    '1',
  ];
}

async function startNode(dataDir: string) {
  const store = await openStore({ sqlitePath: path.join(dataDir, 'switchboard.db') });
  await migrateToLatest(store.db);
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://localhost:8080',
    RATE_LIMIT_PER_MINUTE: '100000',
    SIP_HOST: '127.0.0.1',
    SIP_DOMAIN: 'sip.bench',
    RTP_PORT_MIN: '20000',
    RTP_PORT_MAX: '29999',
  });
  const keys = deriveServerKeys('bench-master-key');
  const deps: ServiceDeps = {
    db: store.db,
    dialect: store.dialect,
    clock: systemClock,
    newId,
    config,
    keys,
    secretBox: new SecretBox(keys.secretBox),
    logger: silentLogger(),
  };
  const sessions = new SessionHost(deps, { llm: createLlmRegistry(config) });
  const node = await TelephonyNode.start({ deps, sessions, port: 0, stt: null });
  const { app } = await buildApp({
    ...deps,
    rateLimiter: new MemoryRateLimiter(config.rateLimitPerMinute, systemClock),
    overrides: { dialer: node.dialer },
    sessionHost: sessions,
  });
  const { workspace, apiKey } = await createWorkspace(deps, { name: 'bench' });
  const api = async (method: string, url: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await app.inject({
      method: method as 'POST',
      url: `/api/v1${url}`,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? (JSON.parse(res.body) as { data: Record<string, unknown> }).data : {};
  };
  const project = await api('POST', '/projects', { name: 'bench' });
  const workflow = await api('POST', '/workflows', {
    project_id: project.id,
    name: 'menu',
    graph: WORKFLOW,
  });
  await api('POST', `/workflows/${String(workflow.id)}/publish`);
  const trunk = await api('POST', '/sip-trunks', {
    name: 'carrier',
    provider: 'carrier_a',
    termination_uri: 'sip:carrier.example.com',
    transport: 'udp',
    auth_username: 'bench',
    auth_password: 'bench-password',
  });
  const number = await api('POST', '/phone-numbers', {
    project_id: project.id,
    number: DIALLED,
    sip_trunk_id: trunk.id,
  });
  await api('PATCH', `/phone-numbers/${String(number.id)}`, {
    dispatch_rules: [{ workflow_id: workflow.id }],
  });
  return {
    node,
    store,
    domain: `${workspace.sip_label}.${config.sip.domain}`,
    async close() {
      await node.close();
      await app.close();
      await sessions.close();
      await store.close();
    },
  };
}

type BenchNode = Awaited<ReturnType<typeof startNode>>;

async function setupRate(n: BenchNode): Promise<void> {
  const scenario = SETUP_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  // Warm the prompt cache and the statement caches with one call first.
  const warm = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, mkdtempSync(`${tmpdir()}/bc-`), 1, 1),
    mkdtempSync(`${tmpdir()}/bc-`),
  );
  if (warm.code !== 0) throw new Error(`warm-up call failed:\n${warm.out.slice(-3000)}`);

  const oursDir = mkdtempSync(`${tmpdir()}/bc-ours-`);
  const ours = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, oursDir, RATE, CALLS),
    oursDir,
  );
  const oursRtt = responseTimes(oursDir);

  // Baseline: the same client against sipp's UAS (answers at once, no work) at the same rate.
  const basePort = await freeUdpPort();
  const uas = spawn('sipp', ['-sn', 'uas', '-i', '127.0.0.1', '-p', String(basePort), '-nostdin'], {
    stdio: 'ignore',
  });
  const baseDir = mkdtempSync(`${tmpdir()}/bc-base-`);
  let base: SippRun;
  try {
    base = await runSipp(sippArgs(`127.0.0.1:${basePort}`, scenario, baseDir, RATE, CALLS), baseDir);
  } finally {
    uas.kill('SIGTERM');
  }
  const baseRtt = responseTimes(baseDir);

  const okOurs = stat(ours.out, 'Successful call');
  const okBase = stat(base.out, 'Successful call');
  // Calls are offered at RATE; the last ones end 1 s after they start, so set-up spans seconds - 1.
  const rateOurs = okOurs / Math.max(0.001, ours.seconds - 1);
  const rateBase = okBase / Math.max(0.001, base.seconds - 1);
  console.log(`calls: set-up at ${RATE} calls/s offered, ${CALLS} calls, each hung up by sipp after 1 s`);
  console.log(
    `  switchboard : ${okOurs} ok, ${stat(ours.out, 'Failed call')} failed, ${rateOurs.toFixed(0)} calls/s, ` +
      `INVITE→200 p50 ${percentile(oursRtt, 50).toFixed(1)} ms, p99 ${percentile(oursRtt, 99).toFixed(1)} ms`,
  );
  console.log(
    `  sipp uas    : ${okBase} ok, ${stat(base.out, 'Failed call')} failed, ${rateBase.toFixed(0)} calls/s, ` +
      `INVITE→200 p50 ${percentile(baseRtt, 50).toFixed(1)} ms, p99 ${percentile(baseRtt, 99).toFixed(1)} ms`,
  );
  console.log(
    `  ratio       : ${(rateOurs / rateBase).toFixed(2)} of sipp-to-sipp's rate ` +
      `(targets: ≥ 100 calls/s, p99 < 20 ms, no failed call)`,
  );
  if (ours.code !== 0) console.log(ours.out.slice(-2000));
  for (const d of [oursDir, baseDir]) rmSync(d, { recursive: true, force: true });
}

async function heldCalls(n: BenchNode): Promise<void> {
  const scenario = HOLD_SCENARIO.replaceAll('__DOMAIN__', n.domain);
  const dir = mkdtempSync(`${tmpdir()}/bc-hold-`);
  // Every live call's media session, kept after the call ends so its counters can be read.
  const sessions = new Map<string, RtpSession>();
  let peak = 0;
  let polling = false;
  const watch = setInterval(() => {
    peak = Math.max(peak, n.node.calls.size);
    if (polling) return;
    polling = true;
    void n.store.db
      .selectFrom('calls')
      .select('id')
      .where('status', '=', 'in_progress')
      .execute()
      .then((live) => {
        for (const { id } of live) {
          if (sessions.has(id)) continue;
          const call = n.node.calls.find(id);
          if (call) sessions.set(id, call.rtp);
        }
      })
      .finally(() => (polling = false));
  }, 100);
  const cpu0 = process.cpuUsage();
  const rss0 = process.memoryUsage().rss;
  let rssPeak = rss0;
  const mem = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  const run = await runSipp(
    sippArgs(`127.0.0.1:${n.node.address.udp}`, scenario, dir, HOLD_RATE, HOLD_CALLS),
    dir,
  );
  clearInterval(watch);
  clearInterval(mem);
  const cpu = process.cpuUsage(cpu0);
  let received = 0;
  let late = 0;
  let sent = 0;
  for (const rtp of sessions.values()) {
    received += rtp.counters.rtpIn;
    late += rtp.receiver.jitterBuffer.stats.late;
    sent += rtp.counters.rtpOut;
  }
  // What sipp sent: every packet of both pcaps for every call whose media we saw.
  const perCall = pcapPackets(`${PCAPS}/g711a.pcap`) + pcapPackets(`${PCAPS}/dtmf_2833_1.pcap`);
  const expected = perCall * sessions.size;
  const lost = Math.max(0, expected - received) + late;
  // A call that missed the digit waits out the dtmf node's 30 s timeout before the workflow hangs up.
  const finished = await n.store.db
    .selectFrom('calls')
    .select(['hangup_reason', 'duration_seconds'])
    .where('direction', '=', 'inbound')
    .where('from_number', 'like', '+4930777%')
    .execute();
  const digits = finished.filter(
    (c) => c.hangup_reason === 'workflow_hangup' && (c.duration_seconds ?? 99) < 20,
  ).length;
  const seconds = run.seconds;
  console.log(
    `calls: held, ${HOLD_RATE} calls/s offered, ${HOLD_CALLS} calls of ~8 s (g711a.pcap in, our prompt out, an RFC 4733 digit)`,
  );
  console.log(
    `  sipp        : ${stat(run.out, 'Successful call')} ok, ${stat(run.out, 'Failed call')} failed in ${seconds.toFixed(0)} s`,
  );
  console.log(`  concurrent  : peak ${peak} calls held at once (target ≥ 300)`);
  console.log(
    `  media in    : ${received} of ${expected} RTP packets sipp sent over ${sessions.size} calls arrived, ` +
      `${late} too late to play: lost ${lost} = ${((100 * lost) / Math.max(1, expected)).toFixed(3)}% (target < 1%)`,
  );
  console.log(`  media out   : ${sent} RTP packets of our prompts sent`);
  console.log(`  workflow    : ${digits} calls heard the digit and were hung up by the workflow`);
  console.log(
    `  node        : CPU ${((cpu.user + cpu.system) / 1e6 / seconds).toFixed(2)} cores, ` +
      `RSS +${((rssPeak - rss0) / 1024 / Math.max(1, peak)).toFixed(0)} KiB per concurrent call at the peak`,
  );
  if (run.code !== 0) console.log(run.out.slice(-2000));
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(`${tmpdir()}/bench-calls-`);
  const n = await startNode(dataDir);
  try {
    if (PART !== '2') await setupRate(n);
    if (PART !== '1') await heldCalls(n);
  } finally {
    await n.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
