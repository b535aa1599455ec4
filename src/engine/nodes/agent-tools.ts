// Answers the tool calls an agent's model makes with the agent's own `tools`:
//   - a tool with a webhook `url`: its JSON arguments are sent (POST by default, `method` may
//     override; `headers` added) and the response text, up to 8 KiB, goes back to the model; a
//     non-2xx status or a timeout (timeout_seconds, default 10) goes back as an error result
//   - any other tool, or a tool name the agent does not have: an error result, so the model can
//     apologise or try something else instead of the node failing
import type { LlmToolCall } from '../../providers/llm/llm.types.js';
import type { AgentTool, NodeContext } from '../node-types.js';

const MAX_RESULT_CHARS = 8192;
const DEFAULT_TOOL_TIMEOUT_SECONDS = 10;

function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

export async function runAgentTool(
  ctx: NodeContext,
  tools: readonly AgentTool[],
  call: LlmToolCall,
  signal: AbortSignal,
): Promise<string> {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return errorResult(`Unknown tool "${call.name}".`);
  if (!tool.url) return errorResult(`Tool "${call.name}" cannot be called in this deployment.`);
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = ctx.clock.setTimeout(
    () => controller.abort(new Error('timeout')),
    (tool.timeout_seconds ?? DEFAULT_TOOL_TIMEOUT_SECONDS) * 1000,
  );
  try {
    const res = await ctx.fetch(ctx.render(tool.url), {
      method: (tool.method ?? 'POST').toUpperCase(),
      headers: { 'Content-Type': 'application/json', ...tool.headers },
      body: call.arguments || '{}',
      signal: controller.signal,
    });
    const text = (await res.text()).slice(0, MAX_RESULT_CHARS);
    if (res.status < 200 || res.status > 299) return errorResult(`HTTP ${res.status}: ${text}`);
    return text;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    return errorResult(controller.signal.aborted ? 'timeout' : (err as Error).message);
  } finally {
    ctx.clock.clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
