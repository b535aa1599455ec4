// Engine test helpers, shared by the engine's and the channels' tests: a NodeContext on a text
// channel and a FakeClock, and graph builders, so node tests stay a few lines each.
import { TextChannel, type TextChannelOptions } from '../../src/channels/text-channel.js';
import type { LlmProvider } from '../../src/providers/llm/llm.types.js';
import { FakeClock } from '../../src/shared/clock.js';
import { EventStream, type EngineEvent } from '../../src/engine/events.js';
import { createNodeContext, type MutableNodeContext } from '../../src/engine/node-context.js';
import type { AgentRecord, FetchLike } from '../../src/engine/node-types.js';
import { VariableStore } from '../../src/engine/variables.js';
import type { GraphEdge, GraphNode, NodeType, WorkflowGraph } from '../../src/engine/workflow-deps.js';

export interface HarnessOptions {
  variables?: Record<string, unknown>;
  clock?: FakeClock;
  channel?: Partial<Omit<TextChannelOptions, 'clock'>>;
  llm?: Record<string, LlmProvider>;
  agents?: AgentRecord[];
  fetch?: FetchLike;
}

export interface Harness {
  ctx: MutableNodeContext;
  clock: FakeClock;
  channel: TextChannel;
  events: EventStream;
  variables: VariableStore;
  /** Events of one type, in order. */
  of<T extends EngineEvent['type']>(type: T): Extract<EngineEvent, { type: T }>[];
  signal: AbortSignal;
  abort(reason?: unknown): void;
}

export function nodeHarness(options: HarnessOptions = {}): Harness {
  const clock = options.clock ?? new FakeClock();
  const channel = new TextChannel({ clock, ...options.channel });
  const events = new EventStream(() => clock.now(), true);
  const variables = new VariableStore(
    options.variables ?? {},
    (e) => events.emit(e),
    () => 'n',
  );
  const agents = new Map((options.agents ?? []).map((a) => [a.id, a]));
  const ctx = createNodeContext({
    clock,
    channel,
    events,
    variables,
    llm: options.llm ?? {},
    getAgent: async (id) => agents.get(id),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  ctx.nodeId = 'n';
  const controller = new AbortController();
  return {
    ctx,
    clock,
    channel,
    events,
    variables,
    of: (type) => events.events.filter((e) => e.type === type) as never,
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
  };
}

/** Lets pending promise callbacks run (nodes awaiting channel input advance). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

type NodeSpec = [id: string, type: NodeType, config?: Record<string, unknown>];
type EdgeSpec = [source: string, target: string, handle?: string];

/** graph([['start','start'], ['bye','end']], [['start','bye']]) */
export function graph(nodes: NodeSpec[], edges: EdgeSpec[]): WorkflowGraph {
  return {
    nodes: nodes.map(([id, type, config]): GraphNode => ({ id, type, config: config ?? {} })),
    edges: edges.map(([source, target, handle]): GraphEdge =>
      handle === undefined ? { source, target } : { source, target, source_handle: handle },
    ),
  };
}

export function testAgent(overrides: Partial<AgentRecord> = {}): AgentRecord {
  return {
    id: 'agent-1',
    name: 'Ada',
    system_prompt: 'You are a helpful receptionist.',
    greeting: null,
    temperature: 0.2,
    tools: [],
    llm_provider: 'fake',
    llm_model: 'fake-model',
    ...overrides,
  };
}
