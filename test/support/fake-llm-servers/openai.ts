// OpenAI Chat Completions stream frames (`data: {chat.completion.chunk}` … `data: [DONE]`), also
// spoken by OpenAI-compatible routers. Tool call arguments are split across chunks by index.
import { splitText, type FakeTurn } from './turn.js';

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;

export function openAiFrames(turn: FakeTurn, options: { routerComments?: boolean } = {}): string[] {
  const base = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'fake-model',
  };
  const chunk = (delta: unknown, finish: string | null = null) =>
    frame({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out: string[] = [];
  // Routers keep the connection warm with SSE comments while the upstream model thinks.
  if (options.routerComments) out.push(': OPENROUTER PROCESSING\n\n');
  out.push(chunk({ role: 'assistant', content: '' }));
  for (const t of turn.text ?? []) out.push(chunk({ content: t }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    out.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const piece of splitText(call.arguments, call.pieces ?? 1)) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (turn.truncate) return out;
  out.push(chunk({}, turn.toolCalls?.length ? 'tool_calls' : 'stop'));
  const usage = turn.usage ?? { input: 0, output: 0 };
  out.push(
    frame({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
      },
    }),
  );
  out.push('data: [DONE]\n\n');
  return out;
}
