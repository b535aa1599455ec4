// Where the CPU went, from the V8 profiles of a `node --cpu-prof` run (one .cpuprofile per thread:
// the service's main thread and each media worker): self time grouped by the part of the service
// the code belongs to, per thread and together, then the busiest functions. A function without a
// source of its own (a native call: SQLite's, a socket's send, a postMessage) is counted in the
// part that called it, unless it is one of V8's own entries (garbage collection, "(program)").
//
//   node --cpu-prof --cpu-prof-dir=DIR dist/bench/calls.bench.js      (CALLS_BENCH_PART=1)
//   node dist/bench/cpu-profile-summary.js DIR [CALLS [FROM-TO]]
// CALLS: per-call figures too; FROM-TO: the bench's "profile window" line (the sipp run alone).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Profile } from './cpu-profile.js';

/** Samples taken within [from, to] (µs, the profiles' clock) count; by default all. */
let window = { from: -Infinity, to: Infinity };

/** The parts of a call's work, matched in order against a function's source URL. */
const PARTS: [string, RegExp][] = [
  ['SDP', /\/telephony\/sip\/sdp\//],
  ['SIP stack', /\/telephony\/sip\//],
  ['media workers (RTP, pacer, jitter buffer)', /\/telephony\/media\/|\/audio\//],
  ['call control (node, live call, media set-up)', /\/telephony\/calls\//],
  ['admission, dispatch, call records', /\/modules\/calls\//],
  ['store (SQLite, statements)', /\/store\/|\.repo\.js|better-sqlite3|kysely/],
  ['workflow engine and sessions', /\/engine\/|\/workflow\/|\/modules\/sessions\//],
  ['voice channel and TTS prompt cache', /\/channels\/|\/providers\//],
  ['events, webhooks, live bus', /\/events\/|\/modules\/webhooks\/|\/modules\/events\//],
  ['logging (pino)', /pino|\/shared\/logger/],
  ['tracing', /\/shared\/tracing|@opentelemetry/],
  ['other service code', /\/src\//],
  ['timers', /node:internal\/timers/],
  ['worker messages', /node:internal\/worker|node:internal\/per_context\/messageport/],
  ['UDP sockets (dgram)', /node:dgram|node:internal\/dgram/],
  ['promises, microtasks', /node:internal\/process\/task_queues|node:internal\/process\/promises/],
  ['node internals', /^node:/],
];

const V8_OWN: Record<string, string> = {
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 and native, outside JS ("(program)")',
  '(idle)': 'idle',
  '(root)': 'idle',
};

function partOf(url: string): string | null {
  if (!url) return null;
  for (const [name, re] of PARTS) if (re.test(url)) return name;
  return 'other (dependencies)';
}

/** Self time (µs) by part and by function of one profile. */
function summarise(profile: Profile): { parts: Map<string, number>; fns: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const part = new Map<number, string>();
  const walk = (id: number, inherited: string) => {
    const n = byId.get(id)!;
    const own = V8_OWN[n.callFrame.functionName] ?? partOf(n.callFrame.url) ?? inherited;
    part.set(id, own);
    for (const c of n.children ?? []) walk(c, own);
  };
  walk(profile.nodes[0]!.id, 'node internals');
  const parts = new Map<string, number>();
  const fns = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < window.from || at > window.to) return;
    const name = part.get(id)!;
    parts.set(name, (parts.get(name) ?? 0) + us);
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${path.basename(f.url)}:${f.lineNumber + 1}`;
    if (name !== 'idle') fns.set(key, (fns.get(key) ?? 0) + us);
  });
  return { parts, fns };
}

function add(into: Map<string, number>, from: Map<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

function table(title: string, parts: Map<string, number>, calls: number): void {
  const busy = [...parts].filter(([k]) => k !== 'idle').reduce((s, [, v]) => s + v, 0);
  console.log(
    `${title}: busy ${(busy / 1000).toFixed(0)} ms${calls ? `, ${(busy / 1000 / calls).toFixed(2)} ms per call` : ''}`,
  );
  for (const [k, v] of [...parts].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1])) {
    const perCall = calls ? `  ${(v / 1000 / calls).toFixed(3)} ms/call` : '';
    console.log(`  ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}${perCall}`);
  }
}

function main(): void {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: cpu-profile-summary DIR [CALLS]');
  const calls = Number(process.argv[3] ?? 0);
  // The bench's "profile window: FROM-TO": the sipp run alone, without start-up and the baseline.
  const span = process.argv[4]?.split('-').map(Number);
  if (span?.length === 2) window = { from: span[0]!, to: span[1]! };
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const all = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const f of files) {
    const s = summarise(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Profile);
    table(f, s.parts, calls);
    add(all, s.parts);
    add(fns, s.fns);
  }
  table('all threads', all, calls);
  const busy = [...all].filter(([k]) => k !== 'idle').reduce((s, [, v]) => s + v, 0);
  console.log('busiest functions (self time, all threads):');
  for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    console.log(`  ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`);
  }
}

main();
