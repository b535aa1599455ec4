// Fake LLM vendor servers for tests and benchmarks: start one per vendor protocol.
export {
  startFakeLlmServer,
  type FakeLlmServer,
  type FakeReply,
  type FakeVendor,
  type RecordedRequest,
} from './server.js';
export { openAiFrames } from './openai.js';
export { anthropicFrames } from './anthropic.js';
export { geminiFrames } from './gemini.js';
export type { FakeTurn, FakeToolCall } from './turn.js';

/** Drains a stream into an array (tests). */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}
