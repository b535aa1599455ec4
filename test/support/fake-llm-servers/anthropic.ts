// Anthropic Messages stream frames: named events (message_start, content_block_start/delta/stop,
// message_delta, message_stop) with a ping, tool input streamed as input_json_delta pieces.
import { splitText, type FakeTurn } from './turn.js';

const frame = (event: string, data: Record<string, unknown>) =>
  `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;

export function anthropicFrames(turn: FakeTurn): string[] {
  const usage = turn.usage ?? { input: 0, output: 0 };
  const out: string[] = [
    frame('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: 'fake-model',
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  if (turn.text?.length) {
    out.push(frame('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    out.push(frame('ping', {}));
    for (const t of turn.text)
      out.push(frame('content_block_delta', { index, delta: { type: 'text_delta', text: t } }));
    out.push(frame('content_block_stop', { index }));
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    out.push(
      frame('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      }),
    );
    for (const piece of splitText(call.arguments, call.pieces ?? 1)) {
      out.push(
        frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
      );
    }
    out.push(frame('content_block_stop', { index }));
    index++;
  }
  if (turn.truncate) return out;
  out.push(
    frame('message_delta', {
      delta: { stop_reason: turn.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  );
  out.push(frame('message_stop', {}));
  return out;
}
