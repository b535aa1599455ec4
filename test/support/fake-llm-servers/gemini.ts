// Gemini streamGenerateContent?alt=sse frames: each event a whole GenerateContentResponse,
// separated by CRLF pairs as Google's servers do; function calls arrive whole, usage at the end.
import type { FakeTurn } from './turn.js';

const frame = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;

export function geminiFrames(turn: FakeTurn): string[] {
  const usage = turn.usage ?? { input: 0, output: 0 };
  const response = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    modelVersion: 'fake-model',
  });
  const out: string[] = [];
  for (const t of turn.text ?? []) out.push(frame(response([{ text: t }])));
  for (const call of turn.toolCalls ?? []) {
    out.push(
      frame(response([{ functionCall: { name: call.name, args: JSON.parse(call.arguments) as unknown } }])),
    );
  }
  if (turn.truncate) return out;
  out.push(
    frame({
      ...response([{ text: '' }], { finishReason: 'STOP' }),
      usageMetadata: {
        promptTokenCount: usage.input,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + usage.output,
      },
    }),
  );
  return out;
}
