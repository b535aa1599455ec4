// Golden flows: every test/fixtures/workflows/*.json holds a graph and one or more runs, each with
// scripted inputs and the exact event sequence expected (in describeEvent's one-line form).
// `simulate` runs go through simulate(); `live` runs drive a LiveSession on the text channel with
// a timed script (advance the fake clock, type, press keys, end the session), which is how
// barge-in, abort and the maximum duration are pinned down. GOLDEN_DUMP_DIR=<dir> writes the actual
// sequences there, for reviewing a changed flow.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TextChannel, type SimulatedOutcomes } from '../channels/text-channel.js';
import { ScriptedLlm, type ScriptedReply } from '../providers/llm/scripted.js';
import { FakeClock } from '../shared/clock.js';
import type { EngineEvent, SessionEndReason } from './events.js';
import type { AgentRecord } from './node-types.js';
import { SessionRegistry } from './session-runtime.js';
import { simulate, type SimulationInput } from './simulate.js';
import { describeEvent } from './testing/describe-event.js';
import { drain, SteppingClock, stepToNextTimer } from './stepping-clock.js';
import type { WorkflowGraph } from './workflow-deps.js';

type ScriptStep = { advance_ms: number } | { text: string } | { dtmf: string } | { end: SessionEndReason };

interface Run {
  name: string;
  mode?: 'simulate' | 'live';
  variables?: Record<string, unknown>;
  inputs?: SimulationInput[];
  script?: ScriptStep[];
  simulated?: SimulatedOutcomes;
  stubs?: { webhook?: { status: number; body?: unknown } };
  llm?: ScriptedReply[];
  first_token_ms?: number;
  playback_ms_per_char?: number;
  max_execution_ms?: number;
  max_steps?: number;
  expect: {
    status: string;
    end_reason?: string;
    path?: string[];
    variables?: Record<string, unknown>;
    events: string[];
  };
}

interface Fixture {
  description: string;
  graph: WorkflowGraph;
  agents?: AgentRecord[];
  runs: Run[];
}

const dir = path.resolve(import.meta.dirname, '../../test/fixtures/workflows');
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

interface Outcome {
  status: string;
  endReason?: string;
  path: string[];
  variables: Record<string, unknown>;
  events: readonly EngineEvent[];
}

async function runSimulated(fx: Fixture, run: Run): Promise<Outcome> {
  const clock = new SteppingClock(new FakeClock());
  const llm = new ScriptedLlm({ clock, replies: run.llm ?? [], firstTokenMs: run.first_token_ms ?? 0 });
  const r = await simulate({
    graph: fx.graph,
    clock,
    llm: { fake: llm },
    agents: fx.agents ?? [],
    variables: run.variables ?? {},
    inputs: run.inputs ?? [],
    simulated: run.simulated ?? {},
    ...(run.stubs ? { stubs: run.stubs } : {}),
    ...(run.max_execution_ms ? { maxExecutionMs: run.max_execution_ms } : {}),
    ...(run.max_steps ? { maxSteps: run.max_steps } : {}),
  });
  return { status: r.status, path: r.path, variables: r.variables, events: r.events };
}

async function runLive(fx: Fixture, run: Run): Promise<Outcome> {
  const clock = new SteppingClock(new FakeClock());
  const llm = new ScriptedLlm({ clock, replies: run.llm ?? [], firstTokenMs: run.first_token_ms ?? 0 });
  const channel = new TextChannel({
    clock,
    simulated: run.simulated ?? {},
    playbackMsPerChar: run.playback_ms_per_char ?? 0,
  });
  const session = new SessionRegistry().create({
    sessionId: 'golden',
    clock,
    channel,
    graph: fx.graph,
    keepHistory: true,
    llm: { fake: llm },
    getAgent: async (id) => fx.agents?.find((a) => a.id === id),
    seeds: { session: run.variables ?? {}, system: { channel: 'test', session_id: 'golden' } },
    ...(run.max_execution_ms ? { maxExecutionMs: run.max_execution_ms } : {}),
    ...(run.max_steps ? { maxSteps: run.max_steps } : {}),
  });
  session.start();
  for (const step of run.script ?? []) {
    await drain();
    if ('advance_ms' in step) clock.fake.advance(step.advance_ms);
    else if ('text' in step) session.sendText(step.text);
    else if ('dtmf' in step) session.sendDtmf(step.dtmf);
    else void session.end(step.end);
  }
  let ended = false;
  void session.done.then(() => (ended = true));
  for (;;) {
    await drain();
    if (ended || !stepToNextTimer(clock)) break;
  }
  const summary = await session.done;
  return {
    status: summary.execution?.status ?? 'none',
    endReason: summary.endReason,
    path: session.execution.path,
    variables: summary.execution?.variables ?? {},
    events: session.events.events,
  };
}

describe.each(files)('golden flow %s', (file) => {
  const fx = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Fixture;
  it.each(fx.runs.map((r) => [r.name, r] as const))('%s', async (_name, run) => {
    const out = run.mode === 'live' ? await runLive(fx, run) : await runSimulated(fx, run);
    const lines = out.events.map(describeEvent);
    const dump = process.env.GOLDEN_DUMP_DIR;
    if (dump) fs.writeFileSync(path.join(dump, `${file}--${run.name}.json`), JSON.stringify(lines, null, 2));
    expect(lines).toEqual(run.expect.events);
    expect(out.status).toBe(run.expect.status);
    if (run.expect.end_reason) expect(out.endReason).toBe(run.expect.end_reason);
    if (run.expect.path) expect(out.path).toEqual(run.expect.path);
    if (run.expect.variables) expect(out.variables).toMatchObject(run.expect.variables);
  });
});
