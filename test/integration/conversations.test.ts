import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/shared/ids.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';

interface Msg {
  role: string;
  content: string;
  agent_name?: string | null;
  latency_ms?: number | null;
  latency?: Record<string, number | null>;
  interrupted?: boolean;
  heard_chars?: number | null;
}

describe.each(storeKinds())('conversations on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  /** Inserts a conversation and its messages directly, as the engine's recorder would. */
  async function insertConversation(
    workspaceId: string,
    opts: { createdAt: string; projectId?: string; sessionId?: string; messages?: Msg[]; steps?: string },
  ) {
    const id = newId();
    const projectId = opts.projectId ?? newId();
    const sessionId = opts.sessionId ?? newId();
    await t.store.db
      .insertInto('conversations')
      .values({
        id,
        workspace_id: workspaceId,
        project_id: projectId,
        session_id: sessionId,
        created_at: opts.createdAt,
        updated_at: opts.createdAt,
        steps: opts.steps ?? null,
      })
      .execute();
    const msgs = opts.messages ?? [];
    // Inserted out of order so the response's ordering by sequence is what is tested.
    for (const [i, m] of [...msgs.entries()].reverse()) {
      await t.store.db
        .insertInto('messages')
        .values({
          id: newId(),
          conversation_id: id,
          sequence: i + 1,
          role: m.role,
          content: m.content,
          agent_name: m.agent_name ?? null,
          spoken_at: new Date(Date.parse(opts.createdAt) + i * 1000).toISOString(),
          latency_ms: m.latency_ms ?? null,
          latency: m.latency ? JSON.stringify(m.latency) : null,
          interrupted: m.interrupted ? 1 : 0,
          heard_chars: m.heard_chars ?? null,
        })
        .execute();
    }
    return { id, projectId, sessionId };
  }

  it('reads one conversation with its messages in sequence order', async () => {
    const ws = await t.newWorkspace('conv one');
    const c = await insertConversation(ws.workspaceId, {
      createdAt: '2026-10-05T09:00:00.000Z',
      messages: [
        {
          role: 'assistant',
          content: 'Hello, how can I help?',
          agent_name: 'Front desk',
          latency_ms: 0,
          interrupted: true,
          heard_chars: 5,
        },
        { role: 'user', content: 'My order is late.' },
        {
          role: 'assistant',
          content: 'Let me check.',
          agent_name: 'Front desk',
          latency_ms: 412,
          latency: {
            endpointing_ms: 300,
            stt_ms: 2,
            llm_first_token_ms: 110,
            tts_first_audio_ms: 95,
            first_packet_ms: 12,
          },
        },
      ],
    });
    const res = await t.call('GET', `/api/v1/conversations/${c.id}`, { key: ws.key });
    expect(res.statusCode).toBe(200);
    expect(res.data).toEqual({
      data: {
        id: c.id,
        project_id: c.projectId,
        session_id: c.sessionId,
        message_count: 3,
        created_at: '2026-10-05T09:00:00Z',
        updated_at: '2026-10-05T09:00:00Z',
        messages: [
          {
            sequence: 1,
            role: 'assistant',
            content: 'Hello, how can I help?',
            spoken_at: '2026-10-05T09:00:00Z',
            latency_ms: 0,
            latency: null,
            interrupted: true,
            heard_chars: 5,
          },
          {
            sequence: 2,
            role: 'user',
            content: 'My order is late.',
            spoken_at: '2026-10-05T09:00:01Z',
            latency_ms: null,
            latency: null,
            interrupted: false,
            heard_chars: null,
          },
          {
            sequence: 3,
            role: 'assistant',
            content: 'Let me check.',
            spoken_at: '2026-10-05T09:00:02Z',
            latency_ms: 412,
            latency: {
              endpointing_ms: 300,
              stt_ms: 2,
              llm_first_token_ms: 110,
              tts_first_audio_ms: 95,
              first_packet_ms: 12,
            },
            interrupted: false,
            heard_chars: null,
          },
        ],
        steps: [],
      },
    });
  });

  it("reads a conversation's workflow steps, times to the second", async () => {
    const ws = await t.newWorkspace('conv steps');
    const step = { handle: null, keys: null, transfer: null, error: null };
    const c = await insertConversation(ws.workspaceId, {
      createdAt: '2026-10-05T09:00:00.000Z',
      steps: JSON.stringify([
        {
          ...step,
          node_id: 'menu',
          node_type: 'dtmf',
          entered_at: '2026-10-05T09:00:00.120Z',
          exited_at: '2026-10-05T09:00:04.900Z',
          handle: 'success',
          keys: '2#',
        },
        {
          ...step,
          node_id: 'human',
          node_type: 'transfer_to_human',
          entered_at: '2026-10-05T09:00:04.900Z',
          exited_at: null,
        },
      ]),
    });
    const res = await t.call('GET', `/api/v1/conversations/${c.id}`, { key: ws.key });
    expect(res.statusCode).toBe(200);
    expect((res.data as { data: { steps: unknown } }).data.steps).toEqual([
      {
        node_id: 'menu',
        node_type: 'dtmf',
        entered_at: '2026-10-05T09:00:00Z',
        exited_at: '2026-10-05T09:00:04Z',
        handle: 'success',
        keys: '2#',
        transfer: null,
        error: null,
      },
      {
        node_id: 'human',
        node_type: 'transfer_to_human',
        entered_at: '2026-10-05T09:00:04Z',
        exited_at: null,
        handle: null,
        keys: null,
        transfer: null,
        error: null,
      },
    ]);
    // The list never carries them.
    const list = await t.call('GET', `/api/v1/conversations?session_id=${c.sessionId}`, { key: ws.key });
    expect((list.data as { data: unknown[] }).data[0]).not.toHaveProperty('steps');
  });

  it('names the agent on every message when more than one agent spoke', async () => {
    const ws = await t.newWorkspace('conv agents');
    const c = await insertConversation(ws.workspaceId, {
      createdAt: '2026-10-05T09:00:00.000Z',
      messages: [
        { role: 'assistant', content: 'Hi', agent_name: 'Triage' },
        { role: 'user', content: 'Billing please' },
        { role: 'tool', content: '{"handoff":"billing"}', agent_name: 'Triage' },
        { role: 'assistant', content: 'Billing here', agent_name: 'Billing', latency_ms: 250 },
      ],
    });
    const res = await t.call('GET', `/api/v1/conversations/${c.id}`, { key: ws.key });
    const messages = (res.data as { data: { messages: Msg[] } }).data.messages;
    expect(messages.map((m) => m.agent_name)).toEqual(['Triage', null, 'Triage', 'Billing']);
  });

  it('lists newest first with message counts and filters by project, session and dates', async () => {
    const ws = await t.newWorkspace('conv list');
    const project = newId();
    const a = await insertConversation(ws.workspaceId, {
      createdAt: '2026-10-01T00:00:00.000Z',
      projectId: project,
      messages: [{ role: 'user', content: 'a' }],
    });
    const b = await insertConversation(ws.workspaceId, {
      createdAt: '2026-10-02T23:59:59.999Z',
      projectId: project,
    });
    const c = await insertConversation(ws.workspaceId, {
      createdAt: '2026-10-03T00:00:00.000Z',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: 'y' },
      ],
    });
    const ids = async (query: string) => {
      const res = await t.call('GET', `/api/v1/conversations${query}`, { key: ws.key });
      expect(res.statusCode, query).toBe(200);
      return (res.data as { data: { id: string }[] }).data.map((x) => x.id);
    };
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids(`?project_id=${project}`)).toEqual([b.id, a.id]);
    expect(await ids(`?session_id=${c.sessionId}`)).toEqual([c.id]);
    expect(await ids('?session_id=unknown')).toEqual([]);
    expect(await ids('?from_date=2026-10-02')).toEqual([c.id, b.id]);
    expect(await ids('?to_date=2026-10-02')).toEqual([b.id, a.id]);
    expect(await ids('?from_date=2026-10-02&to_date=2026-10-02')).toEqual([b.id]);
    expect(await ids(`?from_date=2026-10-01&to_date=2026-10-01&project_id=${project}`)).toEqual([a.id]);

    const page = await t.call('GET', '/api/v1/conversations?per_page=1&from_date=2026-10-01', {
      key: ws.key,
    });
    expect(page.data).toMatchObject({
      data: [
        {
          id: c.id,
          project_id: c.projectId,
          session_id: c.sessionId,
          message_count: 2,
          created_at: '2026-10-03T00:00:00Z',
        },
      ],
      links: { next: 'http://localhost:8080/api/v1/conversations?page=2&per_page=1&from_date=2026-10-01' },
      meta: { total: 3, last_page: 3 },
    });
    expect((page.data as { data: object[] }).data[0]).not.toHaveProperty('messages');
  });

  it('answers 422 for malformed or reversed dates', async () => {
    for (const [query, field] of [
      ['from_date=2026-10-32', 'from_date'],
      ['to_date=10/02/2026', 'to_date'],
      ['from_date=2026-10-03&to_date=2026-10-02', 'from_date'],
    ]) {
      const res = await t.call('GET', `/api/v1/conversations?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.data).toMatchObject({ errors: { [field!]: expect.any(Array) } });
    }
  });

  it('hides conversations of other workspaces behind 404', async () => {
    const mine = await t.newWorkspace('conv mine');
    const theirs = await t.newWorkspace('conv theirs');
    const c = await insertConversation(theirs.workspaceId, { createdAt: '2026-10-05T09:00:00.000Z' });
    const res = await t.call('GET', `/api/v1/conversations/${c.id}`, { key: mine.key });
    expect(res.statusCode).toBe(404);
    expect(res.data).toEqual({ message: 'Conversation not found.' });
    const list = await t.call('GET', '/api/v1/conversations', { key: mine.key });
    expect((list.data as { data: unknown[] }).data).toEqual([]);
    expect((await t.call('GET', `/api/v1/conversations/${newId()}`, { key: mine.key })).statusCode).toBe(404);
    expect((await t.call('GET', `/api/v1/conversations/${c.id}`, { key: theirs.key })).statusCode).toBe(200);
  });
});
