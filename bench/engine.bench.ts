// Engine benchmark (`npm run bench:engine`), two figures, each against a baseline run in the same
// process so the ratio means something on any machine:
//
// 1. Node steps per second through a 1,000-step graph on the text channel (start, then 998 nodes
//    cycling set_variables / condition / speak / transform, then end). Baseline: a bare loop that
//    calls the same node functions directly, with no edges, events, signals or checks.
//    Target: at least 100,000 steps/s.
// 2. Engine-added latency per assistant turn: an agent node answers through the fake LLM with a
//    fixed time to first token on the real clock; added = latency_ms − the fake's delay. Baseline:
//    the same fake called directly (what the timer alone overshoots). Target: p99 under 5 ms.
import { TextChannel } from '../src/channels/text-channel.js';
import { EventStream } from '../src/engine/events.js';
import { Execution } from '../src/engine/interpreter.js';
import { createNodeContext } from '../src/engine/node-context.js';
import { defaultRegistry } from '../src/engine/nodes/index.js';
import { SessionRegistry } from '../src/engine/session-runtime.js';
import { VariableStore } from '../src/engine/variables.js';
import type { GraphNode, WorkflowGraph } from '../src/engine/workflow-deps.js';
import { ScriptedLlm } from '../src/providers/llm/scripted.js';
import { systemClock, type Clock } from '../src/shared/clock.js';

const STEPS = 1000;
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const DELAY_MS = 20;

function stepGraph(): WorkflowGraph {
  const nodes: GraphNode[] = [{ id: 'n0', type: 'start', config: {} }];
  const edges: WorkflowGraph['edges'] = [];
  for (let i = 1; i < STEPS - 1; i++) {
    const id = `n${i}`;
    switch (i % 4) {
      case 0:
        nodes.push({ id, type: 'set_variables', config: { variables: { last: 'step {{i}}' } } });
        break;
      case 1:
        nodes.push({
          id,
          type: 'condition',
          config: { branches: [{ handle: 'never', expression: "tier == 'platinum'" }] },
        });
        break;
      case 2:
        nodes.push({ id, type: 'speak', config: { text: 'Hello {{name}}' } });
        break;
      default:
        nodes.push({
          id,
          type: 'transform',
          config: { operation: 'extract_digits', input: 'four one one', save_to_variable: 'd' },
        });
    }
    edges.push({ source: `n${i - 1}`, target: id });
  }
  nodes.push({ id: `n${STEPS - 1}`, type: 'end', config: {} });
  edges.push({ source: `n${STEPS - 2}`, target: `n${STEPS - 1}` });
  return { nodes, edges };
}

async function engineStepsPerSecond(graph: WorkflowGraph): Promise<number> {
  let steps = 0;
  const start = performance.now();
  for (let r = 0; r < RUNS; r++) {
    const channel = new TextChannel({ clock: systemClock });
    const execution = new Execution({
      graph,
      channel,
      clock: systemClock,
      seeds: { session: { name: 'Ada', tier: 'gold', i: r } },
    });
    const result = await execution.run();
    if (result.status !== 'completed') throw new Error(`run ended ${result.status}`);
    steps += result.path.length;
  }
  return steps / ((performance.now() - start) / 1000);
}

async function baselineStepsPerSecond(graph: WorkflowGraph): Promise<number> {
  let steps = 0;
  const start = performance.now();
  const signal = new AbortController().signal;
  for (let r = 0; r < RUNS; r++) {
    const channel = new TextChannel({ clock: systemClock });
    const events = new EventStream(() => 0);
    const variables = new VariableStore(
      { name: 'Ada', tier: 'gold', i: r },
      () => {},
      () => undefined,
    );
    const ctx = createNodeContext({ clock: systemClock, channel, events, variables });
    for (const node of graph.nodes) {
      await defaultRegistry.get(node.type)!.run(ctx, node.config, signal);
      steps++;
    }
  }
  return steps / ((performance.now() - start) / 1000);
}

/**
 * The real clock, noting how late each timer fired: on a loaded machine setTimeout overshoots by
 * milliseconds, which is the scheduler's doing, not the engine's. Reported separately.
 */
function lateClock(): { clock: Clock; lateness: number[] } {
  const lateness: number[] = [];
  const clock: Clock = {
    now: () => systemClock.now(),
    monotonic: () => systemClock.monotonic(),
    setTimeout(fn, ms) {
      const due = performance.now() + ms;
      return systemClock.setTimeout(() => {
        lateness.push(performance.now() - due);
        fn();
      }, ms);
    },
    clearTimeout: (h) => systemClock.clearTimeout(h),
  };
  return { clock, lateness };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Latencies {
  /** latency_ms − delay, per turn (the brief's definition). */
  raw: number[];
  /** The same, less how late the fake's timer fired (the engine's own share). */
  net: number[];
}

async function engineTurnLatencies(): Promise<Latencies> {
  const late = lateClock();
  const llm = new ScriptedLlm({
    clock: late.clock,
    firstTokenMs: DELAY_MS,
    fallback: { text: 'Sure, one moment.' },
  });
  const channel = new TextChannel({ clock: systemClock });
  const session = new SessionRegistry().create({
    sessionId: 'bench',
    clock: systemClock,
    channel,
    graph: {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        // Conversations of 20 turns, over and over, so history stays a realistic size.
        { id: 'bot', type: 'agent', config: { agent_id: 'a', max_turns: 20, history: 'reset' } },
      ],
      edges: [
        { source: 'start', target: 'bot' },
        { source: 'bot', target: 'bot' },
      ],
    },
    llm: { fake: llm },
    getAgent: async () => ({
      id: 'a',
      name: 'Bench',
      system_prompt: 'You answer briefly.',
      greeting: null,
      temperature: 0,
      tools: [],
      llm_provider: 'fake',
      llm_model: 'fake',
    }),
  });
  const added: number[] = [];
  let answered: (() => void) | null = null;
  session.subscribe((e) => {
    if (e.type === 'message' && e.role === 'assistant' && e.latency_ms !== undefined) {
      added.push(e.latency_ms - DELAY_MS);
      answered?.();
    }
  });
  session.start();
  for (let t = 0; t < TURNS; t++) {
    const done = new Promise<void>((resolve) => (answered = resolve));
    session.sendText(`question ${t}`);
    await done;
  }
  await session.end('client_ended');
  return { raw: added, net: added.map((a, i) => a - (late.lateness[i] ?? 0)) };
}

async function baselineTurnLatencies(): Promise<Latencies> {
  const late = lateClock();
  const llm = new ScriptedLlm({
    clock: late.clock,
    firstTokenMs: DELAY_MS,
    fallback: { text: 'Sure, one moment.' },
  });
  const added: number[] = [];
  for (let t = 0; t < TURNS; t++) {
    const start = performance.now();
    for await (const ev of llm.stream({ model: 'fake', messages: [{ role: 'user', content: 'q' }] })) {
      if (ev.type === 'text') {
        added.push(performance.now() - start - DELAY_MS);
        break;
      }
    }
  }
  return { raw: added, net: added.map((a, i) => a - (late.lateness[i] ?? 0)) };
}

async function main(): Promise<void> {
  const graph = stepGraph();
  await engineStepsPerSecond(graph); // warm-up
  await baselineStepsPerSecond(graph);
  const baseline = await baselineStepsPerSecond(graph);
  const engine = await engineStepsPerSecond(graph);
  console.log(`node steps: engine ${Math.round(engine).toLocaleString('en')} steps/s (target >= 100,000)`);
  console.log(
    `            baseline (bare loop over the same nodes) ${Math.round(baseline).toLocaleString('en')} steps/s`,
  );
  console.log(`            ratio engine/baseline ${(engine / baseline).toFixed(2)}`);

  const base = await baselineTurnLatencies();
  const eng = await engineTurnLatencies();
  const sort = (xs: number[]): number[] => [...xs].sort((x, y) => x - y);
  const f = (n: number): string => `${n.toFixed(2)} ms`;
  const line = (label: string, xs: number[]): string => {
    const s = sort(xs);
    return `            ${label} p50 ${f(percentile(s, 50))}  p99 ${f(percentile(s, 99))}`;
  };
  console.log(`turn latency over a ${DELAY_MS} ms fake LLM, ${TURNS} turns (latency_ms − delay):`);
  console.log(line('engine-added          ', eng.raw) + ' (target p99 < 5 ms)');
  console.log(line('baseline (fake direct)', base.raw));
  console.log(line('engine, timer lateness removed  ', eng.net));
  console.log(line('baseline, timer lateness removed', base.net));
  const p99 = (xs: number[]): number => percentile(sort(xs), 99);
  console.log(
    `            ratio engine/baseline p99 ${(p99(eng.raw) / Math.max(p99(base.raw), 0.001)).toFixed(2)}`,
  );
}

await main();
