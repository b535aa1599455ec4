// Builds the NodeContext an execution hands to its nodes. One object per execution (its nodeId is
// moved along by the interpreter) so a node step allocates nothing it does not need.
//
// Latency of an assistant message = its first output (an LLM's first token, or the moment text is
// said) minus the end of the user's turn that preceded it; only the first assistant output after a
// user turn carries latency_ms, and beside it `latency`, the parts (events.ts LatencyBreakdown).
// That message is emitted once the channel says its output has started (the first audio packet
// out on a voice line, at once on a text line), so the parts after the first token are known.
import type { Channel, OutputTiming, SayResult, UserTurn } from '../channels/channel.js';
import type { LlmMessage, LlmProvider } from '../providers/llm/llm.types.js';
import type { SpeechHints } from '../providers/stt/stt.types.js';
import type { Clock } from '../shared/clock.js';
import type { EngineEventInput, EventStream, LatencyBreakdown } from './events.js';
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
  /** Words the graph around a node expects the user to say (speech-hints.ts), by node id. */
  speechHints?: (nodeId: string) => string[];
}

export interface MutableNodeContext extends NodeContext {
  nodeId: string;
}

const noFetch: FetchLike = async () => {
  throw new Error('HTTP is not available in this execution.');
};

export function createNodeContext(deps: NodeContextDeps): MutableNodeContext {
  const { clock, channel, events, variables } = deps;
  let pendingTurn: UserTurn | null = null;
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
    llm: (providerId: string): LlmProvider => llmProvider(deps.llm, providerId),
    async getAgent(id: string): Promise<AgentRecord | undefined> {
      return deps.getAgent ? deps.getAgent(id) : undefined;
    },
    say(text: string, options: ContextSayOptions): Promise<SayResult> {
      const first = options.firstOutputAt ?? clock.monotonic();
      const turn = pendingTurn;
      pendingTurn = null;
      if (options.toHistory !== false) conversation.push({ role: 'assistant', content: text });
      const nodeId = ctx.nodeId;
      let emitted = false;
      const emit = (timing: OutputTiming): void => {
        if (emitted) return;
        emitted = true;
        events.emit({
          type: 'message',
          role: 'assistant',
          content: text,
          node_id: nodeId,
          ...(options.agentName !== undefined ? { agent_name: options.agentName } : {}),
          ...(turn
            ? { latency_ms: Math.max(0, first - turn.endedAt), latency: breakdown(turn, first, timing) }
            : {}),
        });
      };
      return channel
        .say(text, {
          bargeIn: options.bargeIn,
          signal: options.signal,
          onStarted: emit,
          ...(options.voice ? { voice: options.voice } : {}),
        })
        .then((result) => {
          // Emitted first: the interruption must follow the message it cuts short.
          emit({});
          if (result.bargedIn) {
            const heard = result.heardChars !== undefined ? { heard_chars: result.heardChars } : {};
            events.emit({ type: 'message.interrupted', node_id: nodeId, ...heard });
          }
          return result;
        })
        .finally(() => emit({}));
    },
    async listen(options): Promise<UserTurn | null> {
      const hints = listenHints(options.hints, deps.speechHints?.(ctx.nodeId) ?? []);
      const turn = await channel.listen({
        signal: options.signal,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.language !== undefined ? { language: options.language } : {}),
        ...(hints ? { hints } : {}),
      });
      if (turn) {
        pendingTurn = turn;
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

/** The LLM provider of this id, from the map or the lookup the execution was given. */
function llmProvider(source: NodeContextDeps['llm'], providerId: string): LlmProvider {
  const provider =
    typeof source === 'function' ? source(providerId) : source ? source[providerId] : undefined;
  if (!provider) {
    throw new NodeError('provider_unavailable', `LLM provider "${providerId}" is not configured.`);
  }
  return provider;
}

/** What the node can act on, then the words the graph around it expects; none when both are empty. */
function listenHints(hints: SpeechHints | undefined, expected: string[]): SpeechHints | undefined {
  const phrases = [...(hints?.phrases ?? []), ...expected];
  return phrases.length > 0 || hints?.digits ? { ...hints, phrases } : undefined;
}

const ms = (from: number, to: number): number => Math.max(0, Math.round(to - from));

/** The parts of a turn's latency; see LatencyBreakdown. */
function breakdown(turn: UserTurn, firstOutputAt: number, timing: OutputTiming): LatencyBreakdown {
  const detectedAt = turn.detectedAt ?? turn.endedAt;
  const transcribedAt = turn.transcribedAt ?? detectedAt;
  return {
    endpointing_ms: ms(turn.endedAt, detectedAt),
    stt_ms: ms(detectedAt, transcribedAt),
    llm_first_token_ms: ms(transcribedAt, firstOutputAt),
    tts_first_audio_ms: timing.firstAudioAt === undefined ? null : ms(firstOutputAt, timing.firstAudioAt),
    first_packet_ms:
      timing.firstAudioAt === undefined || timing.firstPacketAt === undefined
        ? null
        : ms(timing.firstAudioAt, timing.firstPacketAt),
  };
}
