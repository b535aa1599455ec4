// The vendor-neutral script of one fake completion; each vendor module renders it in its format.

export interface FakeToolCall {
  id: string;
  name: string;
  /** JSON text of the arguments. */
  arguments: string;
  /** Stream the arguments in this many pieces (OpenAI and Anthropic split them; Gemini cannot). */
  pieces?: number;
}

export interface FakeTurn {
  /** Text deltas, in order. */
  text?: string[];
  toolCalls?: FakeToolCall[];
  usage?: { input: number; output: number };
  /** Omit the final frames (finish reason, stop, [DONE]) to simulate a cut stream. */
  truncate?: boolean;
}

export function splitText(text: string, pieces: number): string[] {
  if (pieces <= 1 || text.length < 2) return [text];
  const size = Math.ceil(text.length / pieces);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
