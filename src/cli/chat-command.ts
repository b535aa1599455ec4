// `switchboard chat --workflow ID [--variables JSON]`: talks to a workflow's latest published
// version over the text channel in this terminal. The conversation itself lives in ./chat.ts
// (the engine's side); this file only checks the flags and hands over.
import { type CliIo, parseFlags, required, showHelp, UsageError } from './io.js';
import { cliConfig } from './open-store.js';

export const help = `Usage: switchboard chat --workflow ID [--variables JSON]

Talks to the latest published version of a workflow over the text (test) channel
in this terminal.
  --workflow ID      workflow id (required)
  --variables JSON   a JSON object seeding the workflow's variables`;

/** A JSON object, or a usage error naming what is wrong with it. */
export function parseVariables(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('chat: --variables is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError('chat: --variables must be a JSON object');
  }
  return value as Record<string, unknown>;
}

export async function chatCommand(argv: string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, { workflow: { type: 'string' }, variables: { type: 'string' } }, 'chat');
  if (flags.help) return showHelp(io, help);
  const workflowId = required(flags.workflow, 'workflow', 'chat');
  const variables = parseVariables(flags.variables);
  const config = cliConfig(io.env);
  // Imported here so the other commands start without loading the engine.
  const { runChat } = await import('./chat.js');
  return runChat(
    config,
    { workflowId, variables },
    { stdin: process.stdin, stdout: io.stdout, stderr: io.stderr },
  );
}
