// Runs a workflow graph without a phone, deterministically, for POST /workflows/{id}/simulate and
// tests. Everything happens on a FakeClock on the text channel:
//   - inputs are fed in order before the run: {text} turns queue for listening nodes (agents),
//     {dtmf} digits queue for collecting nodes; each node kind consumes its own queue in order
//   - when the inputs run out it is silence: listens and digit waits time out at once
//   - telephony nodes take `simulated` outcomes (transfer success, dial answered by default)
//   - webhook nodes never reach the network: `stubs.webhook` answers every request (status, body);
//     without a stub they leave by `error` ("not called in simulations")
//   - agent nodes use `llm` providers when given, else `stubs.llm` scripted replies serve every
//     provider id (none: the agent node fails with provider_unavailable)
//   - timers (LLM delays, maximum duration) run on the fake clock, advanced until the run ends
import { TextChannel, type SimulatedOutcomes } from '../channels/text-channel.js';
import type { LlmProvider } from '../providers/llm/llm.types.js';
import { ScriptedLlm, type ScriptedReply } from '../providers/llm/scripted.js';
import { FakeClock } from '../shared/clock.js';
import {
  EventStream,
  keypressText,
  type EngineEvent,
  type ExecutionError,
  type MessageRole,
} from './events.js';
import { Execution, type FinalStatus } from './interpreter.js';
import type { AgentRecord, FetchLike } from './node-types.js';
import type { NodeRegistry } from './nodes/index.js';
import { drain, SteppingClock } from './stepping-clock.js';
import type { SystemVariables } from './variables.js';
import type { WorkflowGraph } from './workflow-deps.js';

export type SimulationInput = { text: string } | { dtmf: string };

export interface SimulateOptions {
  graph: WorkflowGraph;
  variables?: Record<string, unknown>;
  inputs?: SimulationInput[];
  stubs?: {
    webhook?: { status: number; body?: unknown; headers?: Record<string, string> };
    llm?: ScriptedReply[];
  };
  agents?: AgentRecord[] | ((id: string) => Promise<AgentRecord | undefined>);
  llm?: Record<string, LlmProvider>;
  simulated?: SimulatedOutcomes;
  /** System variables to seed (session_id, workflow_id, …); channel defaults to `test`. */
  system?: SystemVariables;
  fetch?: FetchLike;
  /** A SteppingClock lets the caller build providers (LLM delays) on the clock the driver steps. */
  clock?: FakeClock | SteppingClock;
  maxExecutionMs?: number;
  maxSteps?: number;
  registry?: NodeRegistry;
}

export interface SimulatedMessage {
  role: MessageRole;
  content: string;
  agent_name?: string;
  latency_ms?: number;
}

export interface SimulationResult {
  status: FinalStatus;
  path: string[];
  variables: Record<string, unknown>;
  messages: SimulatedMessage[];
  error?: ExecutionError;
  /** The whole event stream, for tests and debugging UIs. */
  events: EngineEvent[];
}

const noNetwork: FetchLike = async () => {
  throw new Error('not called in simulations (no webhook stub given)');
};

function stubFetch(stub: NonNullable<NonNullable<SimulateOptions['stubs']>['webhook']>): FetchLike {
  const text = typeof stub.body === 'string' ? stub.body : JSON.stringify(stub.body ?? null);
  const headers = new Map(Object.entries(stub.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return async () => ({
    status: stub.status,
    headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null },
    text: async () => text,
  });
}

export async function simulate(options: SimulateOptions): Promise<SimulationResult> {
  const clock =
    options.clock instanceof SteppingClock
      ? options.clock
      : new SteppingClock(options.clock ?? new FakeClock());
  const channel = new TextChannel({
    clock,
    simulated: options.simulated ?? {},
    silenceWhenIdle: true,
    stampOnRead: true,
  });
  for (const input of options.inputs ?? []) {
    if ('text' in input) channel.pushText(input.text);
    else channel.pushDtmf(input.dtmf);
  }
  const events = new EventStream(() => clock.now(), true);
  const agents = options.agents;
  const getAgent =
    typeof agents === 'function' ? agents : async (id: string) => (agents ?? []).find((a) => a.id === id);
  let llm: Record<string, LlmProvider> | ((id: string) => LlmProvider | undefined) | undefined = options.llm;
  if (!llm && options.stubs?.llm) {
    const scripted = new ScriptedLlm({ clock, replies: options.stubs.llm });
    llm = () => scripted;
  }
  const fetch = options.fetch ?? (options.stubs?.webhook ? stubFetch(options.stubs.webhook) : noNetwork);
  const execution = new Execution({
    graph: options.graph,
    channel,
    clock,
    events,
    seeds: { session: options.variables ?? {}, system: { channel: 'test', ...options.system } },
    getAgent,
    fetch,
    ...(llm ? { llm } : {}),
    ...(options.maxExecutionMs !== undefined ? { maxExecutionMs: options.maxExecutionMs } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.registry ? { registry: options.registry } : {}),
  });
  let finished = false;
  const run = execution.run().then((r) => {
    finished = true;
    return r;
  });
  // Drive the fake clock from timer to timer until the run ends; the execution's maximum duration
  // timer guarantees there is always a next one.
  for (;;) {
    await drain();
    if (finished) break;
    const due = clock.nextDue();
    if (due === undefined) execution.cancel('simulation_stalled');
    else clock.fake.advance(due - clock.monotonic());
  }
  const result = await run;
  const messages: SimulatedMessage[] = [];
  for (const e of events.events) {
    // Keys pressed are the caller's turn, as in a call's transcript.
    if (e.type === 'dtmf' && e.keys) messages.push({ role: 'user', content: keypressText(e.keys) });
    if (e.type !== 'message') continue;
    messages.push({
      role: e.role,
      content: e.content,
      ...(e.agent_name !== undefined ? { agent_name: e.agent_name } : {}),
      ...(e.latency_ms !== undefined ? { latency_ms: Math.round(e.latency_ms) } : {}),
    });
  }
  return {
    status: result.status,
    path: result.path,
    variables: result.variables,
    messages,
    ...(result.error ? { error: result.error } : {}),
    events: [...events.events],
  };
}
