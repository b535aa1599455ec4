// `switchboard chat`: a test-channel session of a workflow's latest published version, in the
// terminal. The session is a real one (status, transcript, usage, webhooks), on channel `test`.
// Input lines: plain text is said to the workflow; a line of keypad keys (0-9 * # A-D) or
// `/dtmf 12#` presses keys; `/quit` ends the session. At end of input the session ends once the
// workflow has been quiet for a moment (so piped scripts work).
import readline from 'node:readline';
import type { Config } from '../config/config.js';
import { AddressPolicy } from '../events/address-policy.js';
import { createGuardedAgent } from '../events/ssrf-guard.js';
import { serviceDeps } from '../main.js';
import { SessionHost } from '../modules/sessions/session-host.js';
import { createLlmRegistry } from '../providers/llm/registry.js';
import { silentLogger } from '../shared/logger.js';
import { consumeQuota } from '../modules/usage/quota.service.js';
import { QuotaExceededError } from '../shared/errors.js';
import { inTransaction, toDbTime } from '../store/database.js';
import { openConfiguredStore } from '../store/configured-store.js';
import { CliError } from './io.js';

export interface ChatIo {
  stdin: NodeJS.ReadableStream;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

const KEYS = /^[0-9*#A-D]+$/;
/** After input ends, how long the workflow may stay quiet before the session is ended. */
const QUIET_AFTER_EOF_MS = 1500;

export async function runChat(
  config: Config,
  input: { workflowId: string; variables: Record<string, unknown> },
  io: ChatIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const { store } = await openConfiguredStore(config, 2);
  const deps = serviceDeps(config, store, silentLogger());
  const llm = createLlmRegistry(config);
  const host = new SessionHost(deps, {
    llm,
    dispatcher: createGuardedAgent({ policy: new AddressPolicy(config.webhookAllowedCidrs) }),
  });
  try {
    const workflow = await store.db
      .selectFrom('workflows')
      .selectAll()
      .where('id', '=', input.workflowId)
      .executeTakeFirst();
    if (!workflow) throw new CliError(`chat: no workflow ${input.workflowId}`);
    const version = workflow.published_version;
    if (version === null) throw new CliError(`chat: workflow ${input.workflowId} has no published version`);

    const now = toDbTime(deps.clock.now());
    const sessionId = deps.newId();
    // A chat is a real session: it counts toward the plan like a minted one (402 → a clear error).
    await inTransaction(store.db, async (trx) => {
      await consumeQuota(trx, deps, {
        workspaceId: workflow.workspace_id,
        projectId: workflow.project_id,
        kind: 'sessions',
      });
      await trx
        .insertInto('sessions')
        .values({
          id: sessionId,
          workspace_id: workflow.workspace_id,
          project_id: workflow.project_id,
          workflow_id: workflow.id,
          workflow_version: version,
          channel: 'test',
          status: 'pending',
          variables: JSON.stringify(input.variables),
          metadata: '{}',
          call_id: null,
          end_reason: null,
          started_at: null,
          ended_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }).catch((err: unknown) => {
      if (err instanceof QuotaExceededError)
        throw new CliError(`chat: ${err.errors?.quota?.[0] ?? err.message}`);
      throw err;
    });

    const session = await host.join(workflow.workspace_id, sessionId);
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
    io.stderr.write(
      `chat: session ${sessionId} on "${workflow.name}" v${version}. ` +
        'Type to talk, keys (e.g. 1234#) to press them, /quit to end.\n',
    );
    session.start();

    const lines = readline.createInterface({ input: io.stdin, terminal: false });
    lines.on('line', (raw) => {
      const line = raw.trim();
      if (!line || session.status === 'ended') return;
      lastActivity = Date.now();
      try {
        if (line === '/quit' || line === '/end') void session.end('client_ended');
        else if (line.startsWith('/dtmf ')) session.sendDtmf(line.slice(6).trim());
        else if (KEYS.test(line)) session.sendDtmf(line);
        else session.sendText(line);
      } catch (err) {
        io.stderr.write(`  [${(err as Error).message}]\n`);
      }
    });
    lines.on('close', () => {
      const timer = setInterval(() => {
        if (session.status === 'ended') clearInterval(timer);
        else if (Date.now() - lastActivity >= QUIET_AFTER_EOF_MS) {
          clearInterval(timer);
          void session.end('client_ended');
        }
      }, 100);
    });

    const summary = await session.done;
    lines.close();
    io.stdout.write(`[session ended: ${summary.endReason}, ${summary.durationSeconds} s]\n`);
    return summary.endReason === 'failed' ? 1 : 0;
  } finally {
    await host.close();
    await llm.close();
    await store.close();
  }
}
