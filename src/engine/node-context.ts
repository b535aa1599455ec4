// Builds the NodeContext an execution hands to its nodes. One object per execution (its nodeId is
// moved along by the interpreter) so a node step allocates nothing it does not need.
//
// Latency of an assistant message = its first output (an LLM's first token, or the moment text is
// said) minus the end of the user's turn that preceded it; only the first assistant output after a
// user turn carries latency_ms.
import type { Channel, SayResult, UserTurn } from '../channels/channel.js';
import type { LlmMessage, LlmProvider } from '../providers/llm/llm.types.js';
import type { Clock } from '../shared/clock.js';
import type { EngineEventInput, EventStream } from './events.js';
import {
  NodeError,
  type AgentRecord,
  type ContextSayOptions,
  type FetchLike,
  type NodeContext,
} from './node-types.js';
import type { VariableStore } from './variables.js';
import { renderTemplate } from './workflow-deps.js';

export interface NodeContextDeps {
  clock: Clock;
  channel: Channel;
  events: EventStream;
  variables: VariableStore;
  llm?: Record<string, LlmProvider> | ((id: string) => LlmProvider | undefined);
  getAgent?: (id: string) => Promise<AgentRecord | undefined>;
  fetch?: FetchLike;
}

export interface MutableNodeContext extends NodeContext {
  nodeId: string;
}

const noFetch: FetchLike = async () => {
  throw new Error('HTTP is not available in this execution.');
};

export function createNodeContext(deps: NodeContextDeps): MutableNodeContext {
  const { clock, channel, events, variables } = deps;
  let pendingTurnEnd: number | null = null;
  const conversation: LlmMessage[] = [];
  const ctx: MutableNodeContext = {
    nodeId: '',
    conversation,
    variables,
    clock,
    channel,
    fetch: deps.fetch ?? noFetch,
    render: (template) => renderTemplate(template, variables.values),
    emit: (event: EngineEventInput) => {
      events.emit(event);
    },
    llm(providerId: string): LlmProvider {
      const source = deps.llm;
      const provider =
        typeof source === 'function' ? source(providerId) : source ? source[providerId] : undefined;
      if (!provider) {
        throw new NodeError('provider_unavailable', `LLM provider "${providerId}" is not configured.`);
      }
      return provider;
    },
    async getAgent(id: string): Promise<AgentRecord | undefined> {
      return deps.getAgent ? deps.getAgent(id) : undefined;
    },
    say(text: string, options: ContextSayOptions): Promise<SayResult> {
      const first = options.firstOutputAt ?? clock.monotonic();
      const latency = pendingTurnEnd === null ? undefined : Math.max(0, first - pendingTurnEnd);
      pendingTurnEnd = null;
      if (options.toHistory !== false) conversation.push({ role: 'assistant', content: text });
      events.emit({
        type: 'message',
        role: 'assistant',
        content: text,
        node_id: ctx.nodeId,
        ...(options.agentName !== undefined ? { agent_name: options.agentName } : {}),
        ...(latency !== undefined ? { latency_ms: latency } : {}),
      });
      return channel.say(text, { bargeIn: options.bargeIn, signal: options.signal });
    },
    async listen(options): Promise<UserTurn | null> {
      const turn = await channel.listen(options);
      if (turn) {
        pendingTurnEnd = turn.endedAt;
        conversation.push({ role: 'user', content: turn.text });
        // The transcript's spoken_at is when the user finished, not when a node got round to it.
        const endedAt = clock.now() - Math.max(0, clock.monotonic() - turn.endedAt);
        events.emit({ type: 'message', role: 'user', content: turn.text, node_id: ctx.nodeId }, endedAt);
      }
      return turn;
    },
  };
  return ctx;
}
