// `switchboard chat` in-process: a real data directory, a published workflow, piped input.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runChat } from '../../src/cli/chat.js';
import { loadConfig } from '../../src/config/config.js';
import { serviceDeps } from '../../src/wiring/wiring.js';
import { createWorkspace } from '../../src/modules/workspaces/workspaces.service.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openConfiguredStore } from '../../src/store/configured-store.js';
import { toDbTime } from '../../src/store/database.js';

const PIN_MENU = fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8');

async function seed(dataDir: string, graph = PIN_MENU) {
  const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir });
  const { store } = await openConfiguredStore(config);
  const deps = serviceDeps(config, store, silentLogger());
  const { workspace } = await createWorkspace(deps, { name: 'chat' });
  const now = toDbTime(Date.now());
  const projectId = deps.newId();
  const workflowId = deps.newId();
  await store.db
    .insertInto('projects')
    .values({
      id: projectId,
      workspace_id: workspace.id,
      name: 'p',
      description: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await store.db
    .insertInto('workflows')
    .values({
      id: workflowId,
      workspace_id: workspace.id,
      project_id: projectId,
      name: 'menu',
      graph,
      published_version: 1,
      published_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await store.db
    .insertInto('workflow_versions')
    .values({
      workflow_id: workflowId,
      version: 1,
      workspace_id: workspace.id,
      graph,
      schema_version: 1,
      published_at: now,
      published_by: 'test',
    })
    .execute();
  await store.close();
  return { config, workflowId };
}

/** Data directories made by the tests, removed after each. */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * `switchboard chat` on a fresh data directory holding one published workflow (`graph`), with
 * stdin a stream the test writes to and stdout/stderr captured. `onOut` sees each stdout chunk.
 */
async function startChat(options: {
  graph?: string;
  variables?: Record<string, unknown>;
  onOut?: (chunk: string) => void;
}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-chat-'));
  dirs.push(dir);
  const { config, workflowId } = await seed(dir, options.graph);
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  const run = runChat(
    config,
    { workflowId, variables: options.variables ?? {} },
    {
      stdin,
      stdout: {
        write: (c: string) => {
          out += c;
          options.onOut?.(c);
        },
      },
      stderr: { write: (c: string) => (err += c) },
    },
  );
  return { config, stdin, run, out: () => out, err: () => err };
}

describe('switchboard chat', () => {
  it('talks to the latest published version and records the session', async () => {
    const chat = await startChat({ variables: { name: 'Ann' } });
    chat.stdin.end('1\n');
    expect(await chat.run).toBe(0);
    expect(chat.out()).toContain('workflow> Press 1 for sales, 2 for support');
    expect(chat.out()).toContain('workflow> Connecting you to sales, Ann.');
    expect(chat.out()).toContain('[session ended: completed');
    expect(chat.err()).toContain('[dtmf ask]');

    const { store } = await openConfiguredStore(chat.config);
    const session = await store.db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    expect(session).toMatchObject({ channel: 'test', status: 'ended', end_reason: 'completed' });
    const messages = await store.db.selectFrom('messages').select('content').execute();
    expect(messages.map((m) => m.content)).toContain('Connecting you to sales, Ann.');
    await store.close();
  });

  it('a transferred execution sends session.ended (transferred) and no workflow.* event', async () => {
    // Spec 3.3: workflow.completed is for an execution that reached end or hangup. The test channel
    // pretends the transfer succeeds, so the execution finishes `transferred`.
    const transfer = {
      nodes: [
        { id: 'start', type: 'start', config: {} },
        { id: 'say', type: 'speak', config: { text: 'Transferring you now.' } },
        { id: 'xfer', type: 'transfer_call', config: { destination: 'tel:+15550123' } },
        { id: 'bye', type: 'hangup', config: {} },
      ],
      edges: [
        { source: 'start', target: 'say' },
        { source: 'say', target: 'xfer' },
        { source: 'xfer', target: 'bye', source_handle: 'failed' },
      ],
    };
    const chat = await startChat({ graph: JSON.stringify(transfer) });
    expect(await chat.run).toBe(0);
    chat.stdin.end();
    expect(chat.out()).toContain('[session ended: transferred');

    const { store } = await openConfiguredStore(chat.config);
    const session = await store.db.selectFrom('sessions').selectAll().executeTakeFirstOrThrow();
    expect(session).toMatchObject({ status: 'ended', end_reason: 'transferred' });
    const events = await store.db.selectFrom('webhook_events').select(['type', 'body']).execute();
    expect(events.map((e) => e.type)).toEqual(['session.ended']);
    expect(JSON.parse(events[0]!.body)).toMatchObject({
      data: { id: session.id, end_reason: 'transferred' },
    });
    await store.close();
  });

  it('a piped /quit right after a key ends the session only after the workflow has answered it', async () => {
    const chat = await startChat({});
    // One chunk, as `printf '2\n/quit\nignored\n' | switchboard chat …` delivers it.
    chat.stdin.write('2\n/quit\nhello\n');
    expect(await chat.run).toBe(0);
    expect(chat.out()).toContain('workflow> You chose 2.');
    expect(chat.out()).toContain('[session ended: completed');
    chat.stdin.end();
  });

  it('/quit at a waiting prompt ends the session as client_ended, before the prompt times out', async () => {
    let prompted!: () => void;
    const prompt = new Promise<void>((resolve) => (prompted = resolve));
    const chat = await startChat({ onOut: (c) => c.includes('Press 1') && prompted() });
    await prompt;
    chat.stdin.write('/quit\n');
    expect(await chat.run).toBe(0);
    expect(chat.out()).toContain('[session ended: client_ended');
    // The dtmf node waits 5 s; its timeout branch never ran.
    expect(chat.out()).not.toContain('We did not hear you.');
    chat.stdin.end();
  });

  it('the end of piped input is silence: a collection without terminator keeps the keys and runs on', async () => {
    const chat = await startChat({
      graph: JSON.stringify({
        nodes: [
          { id: 'start', type: 'start', config: {} },
          {
            id: 'pin',
            type: 'dtmf',
            config: { timeout_seconds: 30, terminator: '', save_to_variable: 'pin' },
          },
          { id: 'got', type: 'speak', config: { text: 'Got {{pin}}.' } },
          { id: 'bye', type: 'end', config: {} },
        ],
        edges: [
          { source: 'start', target: 'pin' },
          { source: 'pin', source_handle: 'success', target: 'got' },
          { source: 'pin', source_handle: 'timeout', target: 'bye' },
          { source: 'got', target: 'bye' },
        ],
      }),
    });
    chat.stdin.end('12\n');
    expect(await chat.run).toBe(0);
    expect(chat.out()).toContain('workflow> Got 12.');
    expect(chat.out()).toContain('[session ended: completed');
  });

  it('fails with a clear reason for an unknown workflow', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-chat-'));
    dirs.push(dir);
    const config = loadConfig({ SWITCHBOARD_DATA_DIR: dir });
    await expect(
      runChat(
        config,
        { workflowId: 'nope', variables: {} },
        { stdin: new PassThrough(), stdout: { write: () => 0 }, stderr: { write: () => 0 } },
      ),
    ).rejects.toThrow('chat: no workflow nope');
  });
});
