// The main thread's long tasks, from the V8 profile of a `node --cpu-prof` run: a task is a run of
// samples with no idle sample between them (the event loop never got back to polling its sockets),
// and one over LONG_MS is a stall every packet that arrives during it waits behind, an overload
// refusal's 503 included. Prints how many tasks passed 5, 10 and 20 ms, and where the time of the
// long ones went: by the function at the top of each sample's stack (self time), and by the
// service's own function nearest the top (what to fix, when the top is a library or V8's own).
//
//   node --cpu-prof --cpu-prof-interval 250 --cpu-prof-dir=DIR dist/bench/calls.bench.js
//   node dist/bench/long-tasks.js DIR/<the main thread's>.cpuprofile [FROM-TO] [LONG_MS]
// FROM-TO: the bench's "profile window" line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Profile, ProfileNode } from './cpu-profile.js';

const IDLE = new Set(['(idle)', '(root)']);

function label(n: ProfileNode): string {
  const f = n.callFrame;
  return `${f.functionName || '(anonymous)'} ${path.basename(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
}

/** For each node: its own label and that of the service's frame nearest it (itself or a caller). */
function framesOf(profile: Profile): Map<number, { self: string; ours: string }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<number, { self: string; ours: string }>();
  const walk = (id: number, ours: string) => {
    const n = byId.get(id)!;
    const mine = /\/src\//.test(n.callFrame.url) && !/node_modules/.test(n.callFrame.url) ? label(n) : ours;
    out.set(id, { self: label(n), ours: mine });
    for (const c of n.children ?? []) walk(c, mine);
  };
  walk(profile.nodes[0]!.id, '(no service frame)');
  return out;
}

interface Task {
  start: number;
  us: number;
  samples: number[];
}

/**
 * On a shared machine the thread (or the sampler) is sometimes not scheduled for tens of ms: one
 * sample then spans the gap. A sample counts at most CAP_SAMPLES sampling intervals (the median
 * one), so a task's length is the work in it, not the machine's other load; the gaps are counted
 * apart.
 */
const CAP_SAMPLES = 4;

function tasksOf(profile: Profile, from: number, to: number): { tasks: Task[]; gapUs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const sorted = profile.timeDeltas.slice().sort((a, b) => a - b);
  const cap = CAP_SAMPLES * (sorted[Math.floor(sorted.length / 2)] ?? 1000);
  let gapUs = 0;
  const tasks: Task[] = [];
  let current: Task | null = null;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) return;
    const us = Math.min(delta, cap);
    gapUs += delta - us;
    if (IDLE.has(byId.get(id)!.callFrame.functionName)) {
      if (current) tasks.push(current);
      current = null;
      return;
    }
    current ??= { start: at, us: 0, samples: [] };
    current.us += us;
    current.samples.push(id);
  });
  if (current) tasks.push(current);
  return { tasks, gapUs };
}

function top(title: string, m: Map<string, number>, total: number, n: number): void {
  console.log(title);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(
      `  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`,
    );
  }
}

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: long-tasks FILE.cpuprofile [FROM-TO] [LONG_MS]');
  const span = process.argv[3]?.split('-').map(Number);
  const longMs = Number(process.argv[4] ?? 5);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const [from, to] = span?.length === 2 ? [span[0]!, span[1]!] : [-Infinity, Infinity];
  const { tasks, gapUs } = tasksOf(profile, from, to);
  const frames = framesOf(profile);
  const busy = tasks.reduce((s, t) => s + t.us, 0);
  const over = (ms: number) => tasks.filter((t) => t.us > ms * 1000);
  const long = over(longMs);
  const longUs = long.reduce((s, t) => s + t.us, 0);
  const seconds = Number.isFinite(to - from) ? (to - from) / 1e6 : NaN;
  console.log(
    `${tasks.length} tasks, busy ${(busy / 1000).toFixed(0)} ms over ${seconds.toFixed(1)} s; ` +
      `over 5 ms: ${over(5).length}, over 10 ms: ${over(10).length}, over 20 ms: ${over(20).length}; ` +
      `longest ${(Math.max(0, ...tasks.map((t) => t.us)) / 1000).toFixed(1)} ms; ` +
      `tasks over ${longMs} ms hold ${(longUs / 1000).toFixed(0)} ms (${((100 * longUs) / busy).toFixed(0)}% of busy); ` +
      `${(gapUs / 1000).toFixed(0)} ms of sampling gaps left out (the machine's other load)`,
  );
  const self = new Map<string, number>();
  const ours = new Map<string, number>();
  for (const t of long) {
    const per = t.us / t.samples.length;
    for (const id of t.samples) {
      const f = frames.get(id)!;
      self.set(f.self, (self.get(f.self) ?? 0) + per);
      ours.set(f.ours, (ours.get(f.ours) ?? 0) + per);
    }
  }
  top(`in tasks over ${longMs} ms, by self time:`, self, longUs, 30);
  top(`in tasks over ${longMs} ms, by the service's nearest frame:`, ours, longUs, 30);
  console.log('the 10 longest:');
  for (const t of [...tasks].sort((a, b) => b.us - a.us).slice(0, 10)) {
    const m = new Map<string, number>();
    for (const id of t.samples) m.set(frames.get(id)!.ours, (m.get(frames.get(id)!.ours) ?? 0) + 1);
    const what = [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k, v]) => `${k} ${((100 * v) / t.samples.length).toFixed(0)}%`)
      .join(', ');
    console.log(
      `  ${(t.us / 1000).toFixed(1).padStart(6)} ms at +${((t.start - from) / 1e6).toFixed(2)} s: ${what}`,
    );
  }
}

main();
