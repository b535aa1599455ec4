// A web session end to end: mint over REST, join over a real WebSocket with the join token, press a
// key, and find the transcript, the ended session and the outbox events in the store.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { systemClock } from '../../src/shared/clock.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { createProject, createPublishedWorkflow } from '../support/fixtures.js';
import { storeKinds } from '../support/stores.js';

const graph = JSON.parse(
  fs.readFileSync(new URL('../fixtures/graphs/pin-menu.json', import.meta.url), 'utf8'),
);

interface Frame {
  type: string;
  [k: string]: unknown;
}

/** Collects frames and resolves waits for a frame matching a predicate. */
function client(url: string) {
  const ws = new WebSocket(url);
  const frames: Frame[] = [];
  const waiters: Array<{ pred: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  ws.on('message', (data) => {
    const f = JSON.parse(String(data)) as Frame;
    frames.push(f);
    for (const w of [...waiters]) {
      if (!w.pred(f)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(f);
    }
  });
  const waitFor = (pred: (f: Frame) => boolean) =>
    new Promise<Frame>((resolve) => {
      const hit = frames.find(pred);
      if (hit) resolve(hit);
      else waiters.push({ pred, resolve });
    });
  return { ws, frames, waitFor, send: (m: object) => ws.send(JSON.stringify(m)) };
}

describe.each(storeKinds())('realtime sessions on $name', (kind) => {
  let t: TestApi;
  let base: string;
  let projectId: string;
  let workflowId: string;
  beforeAll(async () => {
    t = await startTestApi(kind, { sessionClock: systemClock });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    projectId = await createProject(t);
    workflowId = await createPublishedWorkflow(t, projectId, t.key, graph);
  });
  afterAll(() => t.close());

  const mint = async () =>
    (
      (
        await t.call('POST', '/api/v1/sessions', {
          body: {
            project_id: projectId,
            workflow_id: workflowId,
            variables: { name: 'Ann' },
            metadata: { ticket: 7 },
          },
        })
      ).data as { data: { id: string; join_token: string } }
    ).data;

  it('runs the workflow over the socket and records transcript, status and events', async () => {
    const s = await mint();
    const c = client(`${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}`);
    expect(await c.waitFor((f) => f.type === 'ready')).toMatchObject({ session_id: s.id, protocol: 1 });
    await c.waitFor((f) => f.type === 'assistant_text' && String(f.text).startsWith('Press 1'));
    c.send({ type: 'dtmf', digits: '1' });
    expect(
      await c.waitFor((f) => f.type === 'assistant_text' && String(f.text).startsWith('Connecting')),
    ).toMatchObject({
      text: 'Connecting you to sales, Ann.',
    });
    expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'completed' });
    c.ws.close();

    const waitEnded = async () => {
      for (let i = 0; i < 100; i++) {
        const row = await t.store.db
          .selectFrom('sessions')
          .selectAll()
          .where('id', '=', s.id)
          .executeTakeFirstOrThrow();
        if (row.status === 'ended') return row;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('session never ended in the store');
    };
    const row = await waitEnded();
    expect(row.end_reason).toBe('completed');
    expect(row.started_at).not.toBeNull();

    const conv = (await t.call('GET', `/api/v1/conversations?session_id=${s.id}`)).data as {
      data: { id: string }[];
    };
    expect(conv.data).toHaveLength(1);
    const full = (await t.call('GET', `/api/v1/conversations/${conv.data[0]!.id}`)).data as {
      data: { messages: { role: string; content: string; sequence: number }[] };
    };
    const contents = full.data.messages.map((m) => `${m.role}:${m.content}`);
    expect(contents[0]).toMatch(/^assistant:Press 1/);
    expect(contents).toContain('assistant:Connecting you to sales, Ann.');
    expect(full.data.messages.map((m) => m.sequence)).toEqual(full.data.messages.map((_, i) => i + 1));

    const events = (await t.store.db.selectFrom('webhook_events').select(['type', 'body']).execute())
      .map((e) => ({ type: e.type, body: JSON.parse(e.body) }))
      .filter((e) => e.body.data.session_id === s.id || e.body.data.id === s.id);
    expect(events.map((e) => e.type).sort()).toEqual(['session.ended', 'workflow.completed']);
    const completed = events.find((e) => e.type === 'workflow.completed')!.body.data;
    expect(completed).toMatchObject({
      status: 'completed',
      last_node_id: 'bye',
      variables: { choice: '1', name: 'Ann' },
      metadata: { ticket: 7 },
    });
    const ended = events.find((e) => e.type === 'session.ended')!.body.data;
    expect(ended).toMatchObject({ end_reason: 'completed', metadata: { ticket: 7 } });
  });

  it('refuses the upgrade without a valid token for this very session', async () => {
    const a = await mint();
    const b = await mint();
    for (const url of [
      `${base}/api/v1/sessions/${a.id}/realtime`,
      `${base}/api/v1/sessions/${a.id}/realtime?token=${b.join_token}`,
      `${base}/api/v1/sessions/${a.id}/realtime?token=garbage`,
    ]) {
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(url);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
      expect(status, url).toBe(401);
    }
  });

  it('DELETE ends a live session: the socket hears it and the node is aborted', async () => {
    const s = await mint();
    const c = client(`${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}`);
    await c.waitFor((f) => f.type === 'assistant_text');
    expect((await t.call('DELETE', `/api/v1/sessions/${s.id}`)).statusCode).toBe(204);
    expect(await c.waitFor((f) => f.type === 'ended')).toMatchObject({ end_reason: 'force_ended' });
    c.ws.close();
    const again = client(`${base}/api/v1/sessions/${s.id}/realtime?token=${s.join_token}`);
    expect(await again.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'session_ended' });
    again.ws.close();
  });
});
