// `switchboard chat`: a test-channel session of a workflow's latest published version, in the
// terminal. The session is a real one (status, transcript, usage, webhooks), on channel `test`.
// Input lines: plain text is said to the workflow; a line of keypad keys (0-9 * # A-D) or
// `/dtmf 12#` presses keys; `/quit` ends the session. Both `/quit` and the end of input end it once
// the workflow has been quiet for a moment: a piped script (`printf '2\n/quit\n' | …`) hears the
// answer to its last line before the session ends, and a person who types `/quit` at a waiting
// prompt sees it end at once, since the workflow has long been quiet by then. The end of input is
// also silence from then on: a node waiting for keys or words stops waiting (as at its timeout),
// so `printf '12\n' | …` into a collection without a terminator saves "12" and runs on.
import readline from 'node:readline';
import type { Selectable } from 'kysely';
import type { Config } from '../config/config.js';
import type { LiveSession, SessionSummary } from '../engine/session-runtime.js';
import type { ServiceDeps } from '../modules/context.js';
import { silentLogger } from '../shared/logger.js';
import { insertPendingSession } from '../modules/sessions/session-lifecycle.js';
import { consumeQuota } from '../modules/usage/quota.service.js';
import { workflowsRepo } from '../modules/workflows/workflows.repo.js';
import { QuotaExceededError } from '../shared/errors.js';
import { inTransaction } from '../store/database.js';
import { openConfiguredStore } from '../store/configured-store.js';
import type { WorkflowTable } from '../store/schema.js';
import { createWiring } from '../wiring/wiring.js';
import { CliError } from './io.js';

export interface ChatIo {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

const KEYS = /^[0-9*#A-D]+$/;
/** After `/quit` or the end of input, how long the workflow must stay quiet before the session ends. */
const QUIET_MS = 1500;

export async function runChat(
  config: Config,
  input: { workflowId: string; variables: Record<string, unknown> },
  io: ChatIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const { store } = await openConfiguredStore(config, 2);
  const wiring = createWiring({ config, store, logger: silentLogger() });
  try {
    const { workflow, version, sessionId } = await createChatSession(wiring.deps, input);
    const session = await wiring.sessionHost.join(workflow.workspace_id, sessionId);
    io.stderr.write(
      `chat: session ${sessionId} on "${workflow.name}" v${version}. ` +
        'Type to talk, keys (e.g. 1234#) to press them, /quit to end.\n',
    );
    const summary = await talk(session, io);
    io.stdout.write(`[session ended: ${summary.endReason}, ${summary.durationSeconds} s]\n`);
    return summary.endReason === 'failed' ? 1 : 0;
  } finally {
    await wiring.close();
    await store.close();
  }
}

/** A pending test-channel session of the workflow's published version, counted toward the plan. */
async function createChatSession(
  deps: ServiceDeps,
  input: { workflowId: string; variables: Record<string, unknown> },
): Promise<{ workflow: Selectable<WorkflowTable>; version: number; sessionId: string }> {
  const workflow = await workflowsRepo.findById(deps.db, input.workflowId);
  if (!workflow) throw new CliError(`chat: no workflow ${input.workflowId}`);
  const version = workflow.published_version;
  if (version === null) throw new CliError(`chat: workflow ${input.workflowId} has no published version`);

  // A chat is a real session: it counts toward the plan like a minted one (402 → a clear error).
  const session = await inTransaction(deps.db, async (trx) => {
    await consumeQuota(trx, deps, {
      workspaceId: workflow.workspace_id,
      projectId: workflow.project_id,
      kind: 'sessions',
    });
    return insertPendingSession(trx, deps, {
      workspace_id: workflow.workspace_id,
      project_id: workflow.project_id,
      workflow_id: workflow.id,
      workflow_version: version,
      channel: 'test',
      variables: JSON.stringify(input.variables),
      metadata: '{}',
      call_id: null,
    });
  }).catch((err: unknown) => {
    if (err instanceof QuotaExceededError)
      throw new CliError(`chat: ${err.errors?.quota?.[0] ?? err.message}`);
    throw err;
  });

  return { workflow, version, sessionId: session.id };
}

/**
 * Prints what the session says and feeds it the lines typed; resolves when it has ended. Both
 * `/quit` and the end of input end it once the workflow has been quiet for QUIET_MS.
 */
async function talk(session: LiveSession, io: ChatIo): Promise<SessionSummary> {
  let lastActivity = Date.now();
  session.subscribe((event) => {
    lastActivity = Date.now();
    if (event.type === 'message' && event.role === 'assistant') {
      io.stdout.write(`${event.agent_name ?? 'workflow'}> ${event.content}\n`);
    } else if (event.type === 'node.entered') {
      io.stderr.write(`  [${event.node_type} ${event.node_id}]\n`);
    } else if (event.type === 'execution.failed') {
      io.stderr.write(`  [failed at ${event.last_node_id ?? '?'}: ${event.error.message}]\n`);
    }
  });
  session.start();

  // Ends the session once the workflow has been quiet for QUIET_MS (checked now, then every
  // 100 ms); the session may also end by itself meanwhile.
  let ending = false;
  const endWhenQuiet = (): void => {
    if (ending) return;
    ending = true;
    const check = (): boolean => {
      if (session.status === 'ended') return true;
      if (Date.now() - lastActivity < QUIET_MS) return false;
      void session.end('client_ended');
      return true;
    };
    if (check()) return;
    const timer = setInterval(() => check() && clearInterval(timer), 100);
  };

  let quit = false;
  const lines = readline.createInterface({ input: io.stdin, terminal: false });
  lines.on('line', (raw) => {
    const line = raw.trim();
    if (!line || ending || session.status === 'ended') return;
    if (line === '/quit' || line === '/end') {
      quit = true;
      lines.close();
      return;
    }
    lastActivity = Date.now();
    try {
      if (line.startsWith('/dtmf ')) session.sendDtmf(line.slice(6).trim());
      else if (KEYS.test(line)) session.sendDtmf(line);
      else session.sendText(line);
    } catch (err) {
      io.stderr.write(`  [${(err as Error).message}]\n`);
    }
  });
  lines.on('close', () => {
    if (!quit) (session.channel as { closeInput?: () => void }).closeInput?.();
    endWhenQuiet();
  });

  const summary = await session.done;
  lines.close();
  return summary;
}
