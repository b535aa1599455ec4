// The shapes every node shares: what a node gets (NodeContext), what it returns (NodeOutcome) and
// how it declares itself (NodeDefinition). A node never follows edges; it names the handle to
// leave by and the interpreter does the rest.
import type { Channel, ChannelNeed, SayResult, UserTurn, VoiceSettings } from '../channels/channel.js';
import type { SpeechHints } from '../providers/stt/stt.types.js';
import type { LlmMessage, LlmProvider } from '../providers/llm/llm.types.js';
import type { Clock } from '../shared/clock.js';
import type { EngineEventInput } from './events.js';

/** The agent record as the engine needs it (the API's agent row, JSON columns parsed). */
export interface AgentRecord {
  id: string;
  name: string;
  system_prompt: string;
  greeting: string | null;
  temperature: number;
  tools: AgentTool[];
  llm_provider: string;
  llm_model: string;
  /** Voice settings (spec 2.2); voice lines speak and hear with them from this agent's node on. */
  tts_voice?: string | null;
  stt_language?: string;
}

/**
 * A tool of the agent's own `tools` array. Tools with a webhook `url` are called over HTTP (POST of
 * the arguments as JSON; the response text goes back to the model); other tools answer the model
 * with an error, so it can recover.
 */
export interface AgentTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  timeout_seconds?: number;
}

/** The part of `fetch` the engine uses; tests pass a local server's fetch, simulations a stub. */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<FetchResponse>;

export interface Variables {
  get(name: string): unknown;
  has(name: string): boolean;
  /** Sets one variable and emits variables.changed. */
  set(name: string, value: unknown): void;
  setMany(values: Record<string, unknown>): void;
  /** The live values (do not mutate); what templates and expressions read. */
  readonly values: Readonly<Record<string, unknown>>;
}

export interface ContextSayOptions {
  bargeIn: boolean;
  signal: AbortSignal;
  /** Assistant messages from an agent carry its name (for the transcript). */
  agentName?: string;
  /** Clock.monotonic() of the first output (an LLM's first token); default: now. */
  firstOutputAt?: number;
  /** Whether to append the text to the LLM history (`conversation`); default true. */
  toHistory?: boolean;
  /** The agent's voice settings, for voice lines. */
  voice?: VoiceSettings;
}

export interface ContextListenOptions {
  signal: AbortSignal;
  timeoutMs?: number;
  /** The agent's `stt_language`. */
  language?: string;
  /** What the node can act on (merged with the words the graph around it expects). */
  hints?: SpeechHints;
}

export interface NodeContext {
  readonly nodeId: string;
  readonly variables: Variables;
  readonly clock: Clock;
  readonly channel: Channel;
  /**
   * The execution's conversation as LLM messages (no system prompt): what was said and heard on
   * every node, so an agent node with `history: append` knows what came before it.
   */
  readonly conversation: LlmMessage[];
  /** Renders `{{name}}` templates against the current variables (no code runs). */
  render(template: string): string;
  emit(event: EngineEventInput): void;
  /** The LLM provider registered under this id; throws when unknown. */
  llm(providerId: string): LlmProvider;
  getAgent(id: string): Promise<AgentRecord | undefined>;
  fetch: FetchLike;
  /** Says text on the channel and records it as an assistant message with its latency. */
  say(text: string, options: ContextSayOptions): Promise<SayResult>;
  /** Waits for the user's next turn on the channel and records it as a user message. */
  listen(options: ContextListenOptions): Promise<UserTurn | null>;
}

export type NodeFinish =
  { status: 'completed' } | { status: 'transferred'; destination: string; mode: 'blind' | 'warm' };

export interface NodeOutcome {
  /** The handle to leave by; `default` for nodes with a single way out. */
  handle: string;
  /** Variables to set before the engine moves on. */
  outputs?: Record<string, unknown>;
  /** Ends the execution (end, hangup, successful transfers); the handle is then ignored. */
  finish?: NodeFinish;
}

export interface NodeDefinition {
  type: string;
  /** What the channel must offer; checked by the interpreter before the node runs. */
  needs?: readonly ChannelNeed[];
  /**
   * How the node leaves when the channel lacks one of its needs and the graph has an edge for
   * that handle: a transfer or a dial that cannot happen here (a web chat) is a failed one, and the
   * graph's fallback runs (the API's rule: "execution continues on the `failed` handle"). Without it, or
   * without that edge, the execution fails with channel_unsupported.
   */
  unsupported?: NodeOutcome;
  /**
   * The node never waits (no channel, timer or network): it gets a shared signal that never
   * aborts instead of its own, and the interpreter checks for a stop right after it. Creating an
   * AbortController is the largest fixed cost of a step, and these nodes are most steps.
   */
  instant?: boolean;
  run(ctx: NodeContext, config: Record<string, unknown>, signal: AbortSignal): Promise<NodeOutcome>;
}

/** A node failed in a way the graph has no handle for; ends the execution as failed. */
export class NodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}
