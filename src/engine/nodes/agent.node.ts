// `agent`: a multi-turn LLM conversation with an agent of the project, in the pipecat-flows shape:
// the node's exits are tools the model may call, and calling one leaves the node by that handle.
//
//   agent_id        the agent: system_prompt, greeting, temperature, tools, llm_provider, llm_model
//   instructions    template added to the agent's system prompt for this step
//   greeting        template said on entering; default the agent's greeting (none: wait for the user)
//   history         append (default): the model sees the whole conversation so far, including what
//                   speak/dtmf nodes said and the user answered; reset: this node starts afresh
//   exits           [{"handle", "description"}]: one tool per exit, named like the handle
//   outputs         [{"variable", "description"}]: arguments of every exit tool; the values the
//                   model passes are saved into those variables when it exits
//   max_turns       user turns answered before the node leaves by `default`
//   silence_timeout_seconds  optional; no user turn in time (or no input left in a simulation)
//                   leaves by `default`
//
// On voice lines the agent's `tts_voice` and `stt_language` apply from this node on, and the
// listen tells the recogniser what this node can act on: its exits' names (`talk_to_sales` →
// "talk to sales"), which the embedded recogniser turns into its grammar for the turn.
//
// Tool calls of the agent's own `tools` are answered by agent-tools.ts (webhook `url` → called;
// others → an error result). Each model call emits a `usage` event; at most max_tool_rounds (5)
// model calls answer one user turn.
import type { LlmMessage, LlmProvider, LlmTool, LlmToolCall } from '../../providers/llm/llm.types.js';
import { NodeError, type AgentRecord, type NodeContext, type NodeDefinition } from '../node-types.js';
import { runAgentTool } from './agent-tools.js';
import { optArray, optNumber, optString, reqString } from './config.js';

export const DEFAULT_MAX_TOOL_ROUNDS = 5;
/** Silence and max_turns leave by the node's default handle (node-specs.ts). */
export const DEFAULT_AGENT_HANDLE = 'default';

export interface AgentExit {
  handle: string;
  description?: string;
}

interface AgentOutput {
  variable: string;
  description: string;
}

function readExits(config: Record<string, unknown>): AgentExit[] {
  return (optArray(config, 'exits') ?? []).map((raw) => {
    const e = (typeof raw === 'string' ? { handle: raw } : raw) as Record<string, unknown>;
    if (typeof e.handle !== 'string' || e.handle === '') {
      throw new NodeError('invalid_config', 'Each agent exit needs a handle.');
    }
    return typeof e.description === 'string'
      ? { handle: e.handle, description: e.description }
      : { handle: e.handle };
  });
}

function readOutputs(config: Record<string, unknown>): AgentOutput[] {
  return (optArray(config, 'outputs') ?? []).flatMap((raw) => {
    const o = raw as Record<string, unknown>;
    return typeof o?.variable === 'string'
      ? [{ variable: o.variable, description: typeof o.description === 'string' ? o.description : '' }]
      : [];
  });
}

function exitTool(exit: AgentExit, outputs: AgentOutput[]): LlmTool {
  const properties: Record<string, unknown> = {};
  for (const o of outputs) properties[o.variable] = { type: 'string', description: o.description };
  return {
    name: exit.handle,
    description: exit.description ?? `Leave this step and continue at "${exit.handle}".`,
    parameters: { type: 'object', properties },
  };
}

export const agentNode: NodeDefinition = {
  type: 'agent',
  run: async (ctx, config, signal) => {
    const agentId = reqString(config, 'agent_id');
    const agent = await ctx.getAgent(agentId);
    if (!agent) throw new NodeError('agent_not_found', `Agent "${agentId}" was not found.`);
    const llm = ctx.llm(agent.llm_provider);
    const exits = readExits(config);
    const outputs = readOutputs(config);
    const exitByTool = new Map(exits.map((e) => [e.handle, e]));
    const tools = agentTools(agent, exits, outputs);
    const silence = optNumber(config, 'silence_timeout_seconds');
    const maxTurns = optNumber(config, 'max_turns');
    const maxRounds = optNumber(config, 'max_tool_rounds') ?? DEFAULT_MAX_TOOL_ROUNDS;
    const system = systemPrompt(ctx, agent, optString(config, 'instructions'));
    const history = ctx.conversation;
    if (optString(config, 'history') === 'reset') history.length = 0;
    const voice = {
      ...(agent.tts_voice ? { voice: agent.tts_voice } : {}),
      ...(agent.stt_language ? { language: agent.stt_language } : {}),
    };
    const hints = { phrases: exits.map((e) => e.handle) };
    const greeting = optString(config, 'greeting') ?? agent.greeting;
    if (greeting)
      await ctx.say(ctx.render(greeting), { bargeIn: true, signal, agentName: agent.name, voice });

    for (let turns = 0; ; turns++) {
      if (maxTurns !== undefined && turns >= maxTurns) return { handle: DEFAULT_AGENT_HANDLE };
      const turn = await ctx.listen({
        signal,
        hints,
        ...(agent.stt_language ? { language: agent.stt_language } : {}),
        ...(silence !== undefined && silence > 0 ? { timeoutMs: silence * 1000 } : {}),
      });
      if (!turn) return { handle: DEFAULT_AGENT_HANDLE };

      for (let round = 0; round < maxRounds; round++) {
        const messages: LlmMessage[] = [{ role: 'system', content: system }, ...history];
        const { text, calls, firstOutputAt } = await modelReply(ctx, llm, agent, messages, tools, signal);
        history.push({
          role: 'assistant',
          content: text,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        });
        if (text.trim() !== '') {
          await ctx.say(text, {
            bargeIn: true,
            signal,
            agentName: agent.name,
            toHistory: false,
            voice,
            ...(firstOutputAt !== undefined ? { firstOutputAt } : {}),
          });
        }
        const exitCall = calls.find((c) => exitByTool.has(c.name));
        if (exitCall) {
          // Answer every call so the history stays valid for a later agent node.
          for (const c of calls) history.push(toolMessage(c, c === exitCall ? '{"ok":true}' : SKIPPED));
          return { handle: exitCall.name, outputs: pickOutputs(exitCall.arguments, outputs) };
        }
        if (calls.length === 0) break;
        for (const call of calls) {
          const result = await runAgentTool(ctx, agent.tools, call, signal);
          history.push(toolMessage(call, result));
          ctx.emit({ type: 'message', role: 'tool', content: result, node_id: ctx.nodeId });
        }
      }
    }
  },
};

/** The agent's own tools (those not shadowed by an exit), then one tool per exit. */
function agentTools(agent: AgentRecord, exits: AgentExit[], outputs: AgentOutput[]): LlmTool[] {
  const exitNames = new Set(exits.map((e) => e.handle));
  return [
    ...agent.tools
      .filter((t) => !exitNames.has(t.name))
      .map((t) => ({
        name: t.name,
        description: t.description ?? '',
        parameters: t.parameters ?? { type: 'object', properties: {} },
      })),
    ...exits.map((e) => exitTool(e, outputs)),
  ];
}

/** The agent's system prompt with this step's instructions after it, both rendered. */
function systemPrompt(ctx: NodeContext, agent: AgentRecord, instructions: string | undefined): string {
  return [agent.system_prompt, instructions ?? '']
    .filter((p) => p !== '')
    .map((p) => ctx.render(p))
    .join('\n\n');
}

interface ModelReply {
  text: string;
  calls: LlmToolCall[];
  /** When the first text arrived (monotonic), for the reply's latency. */
  firstOutputAt: number | undefined;
}

/** One model call: its text and tool calls, with a `usage` event for what it cost. */
async function modelReply(
  ctx: NodeContext,
  llm: LlmProvider,
  agent: AgentRecord,
  messages: LlmMessage[],
  tools: LlmTool[],
  signal: AbortSignal,
): Promise<ModelReply> {
  const reply: ModelReply = { text: '', calls: [], firstOutputAt: undefined };
  for await (const ev of llm.stream({
    model: agent.llm_model,
    messages,
    temperature: agent.temperature,
    signal,
    ...(tools.length > 0 ? { tools } : {}),
  })) {
    if (ev.type === 'text') {
      reply.firstOutputAt ??= ctx.clock.monotonic();
      reply.text += ev.delta;
    } else if (ev.type === 'tool_call') {
      reply.calls.push(ev.call);
    } else {
      ctx.emit({
        type: 'usage',
        llm_input_tokens: ev.usage.inputTokens,
        llm_output_tokens: ev.usage.outputTokens,
        // After a fallback the provider that answered is named on `done`; bill that one.
        provider: ev.provider ?? llm.id,
        model: ev.model ?? agent.llm_model,
      });
    }
  }
  return reply;
}

const SKIPPED = '{"error":"not run: the conversation moved on"}';

function toolMessage(call: LlmToolCall, content: string): LlmMessage {
  return { role: 'tool', content, tool_call_id: call.id, name: call.name };
}

function pickOutputs(argumentsText: string, outputs: AgentOutput[]): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(argumentsText || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      args = parsed as Record<string, unknown>;
    }
  } catch {
    // Malformed arguments: the exit still counts, the outputs stay unset.
  }
  const out: Record<string, unknown> = {};
  for (const o of outputs) if (o.variable in args) out[o.variable] = args[o.variable];
  return out;
}
