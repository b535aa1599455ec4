import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKinds } from '../../test/support/stores.js';
import { TextChannel } from '../channels/text-channel.js';
import { ScriptedLlm } from '../providers/llm/scripted.js';
import { FakeClock } from '../shared/clock.js';
import type { Store } from '../store/database.js';
import type { RecordedStep } from './conversation-recorder.js';
import { recordSession } from './session-recording.js';
import { SessionRegistry, type LiveSessionOptions } from './session-runtime.js';
import { graph, settle, testAgent } from '../../test/support/engine-harness.js';

// Two agents in a row so agent_name becomes visible (docs/conversations.md), with a speak node before them.
const flow = graph(
  [
    ['start', 'start'],
    ['hello', 'speak', { text: 'Welcome' }],
    ['a', 'agent', { agent_id: 'a1', exits: [{ handle: 'next', description: 'hand over' }] }],
    ['b', 'agent', { agent_id: 'a2', max_turns: 1 }],
    ['bye', 'end'],
  ],
  [
    ['start', 'hello'],
    ['hello', 'a'],
    ['a', 'b', 'next'],
    ['a', 'bye'],
    ['b', 'bye'],
  ],
);

for (const kind of storeKinds()) {
  describe(`conversation recorder and usage meter (${kind.name})`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await kind.open();
    });
    afterAll(() => store.close());

    /** A session made with `options`, recorded into the store (workspace w1, project p1). */
    const recorded = (options: LiveSessionOptions) => {
      const session = new SessionRegistry().create(options);
      const rec = recordSession(session, {
        db: store.db,
        workspaceId: 'w1',
        projectId: 'p1',
        now: options.clock.now(),
      });
      return { session, rec };
    };

    it('writes one conversation, numbered messages with latency, agent names and usage', async () => {
      const clock = new FakeClock('2026-03-01T10:00:00Z');
      const llm = new ScriptedLlm({
        clock,
        firstTokenMs: 250,
        replies: [
          {
            text: 'Passing you on.',
            toolCalls: [{ name: 'next' }],
            usage: { inputTokens: 10, outputTokens: 4 },
          },
          { text: 'Bob here.', usage: { inputTokens: 20, outputTokens: 3 } },
        ],
      });
      const agents = [testAgent({ id: 'a1', name: 'Ada' }), testAgent({ id: 'a2', name: 'Bob' })];
      const { session, rec } = recorded({
        sessionId: `sess-${kind.name}`,
        clock,
        channel: new TextChannel({ clock }),
        graph: flow,
        llm: { fake: llm },
        getAgent: async (id) => agents.find((a) => a.id === id),
      });
      session.start();
      await settle();
      session.sendText('billing please');
      await settle(100);
      await clock.advanceAsync(250);
      session.sendText('thanks');
      await settle(100);
      await clock.advanceAsync(250);
      await session.done;
      await rec.flush();

      const conv = await store.db.selectFrom('conversations').selectAll().execute();
      expect(conv).toHaveLength(1);
      expect(conv[0]).toMatchObject({
        session_id: `sess-${kind.name}`,
        workspace_id: 'w1',
        project_id: 'p1',
      });
      const msgs = await store.db
        .selectFrom('messages')
        .select(['sequence', 'role', 'content', 'agent_name', 'latency_ms', 'spoken_at'])
        .where('conversation_id', '=', conv[0]!.id)
        .orderBy('sequence')
        .execute();
      expect(msgs.map((m) => [m.sequence, m.role, m.content, m.agent_name, m.latency_ms])).toEqual([
        [1, 'assistant', 'Welcome', null, null],
        [2, 'user', 'billing please', null, null],
        [3, 'assistant', 'Passing you on.', 'Ada', 250],
        [4, 'user', 'thanks', null, null],
        [5, 'assistant', 'Bob here.', 'Bob', 250],
      ]);
      expect(msgs[2]!.spoken_at).toBe('2026-03-01T10:00:00.250Z');
      expect(msgs[3]!.spoken_at).toBe('2026-03-01T10:00:00.250Z');

      const usage = await store.db
        .selectFrom('usage_events')
        .select(['metric', 'provider', 'quantity', 'workspace_id'])
        .orderBy('metric')
        .orderBy('quantity')
        .execute();
      expect(usage.map((u) => [u.metric, u.provider, Number(u.quantity)])).toEqual([
        ['llm_input_tokens', 'fake', 10],
        ['llm_input_tokens', 'fake', 20],
        ['llm_output_tokens', 'fake', 3],
        ['llm_output_tokens', 'fake', 4],
      ]);
    });

    it('marks the assistant message the user cut short as interrupted', async () => {
      const clock = new FakeClock('2026-03-01T10:00:00Z');
      const llm = new ScriptedLlm({
        clock,
        firstTokenMs: 0,
        replies: [{ text: 'Our opening hours are nine to five on weekdays.' }],
      });
      const oneAgent = graph(
        [
          ['start', 'start'],
          ['a', 'agent', { agent_id: 'a1', greeting: 'Hello there.', max_turns: 2 }],
          ['bye', 'end'],
        ],
        [
          ['start', 'a'],
          ['a', 'bye'],
        ],
      );
      const { session, rec } = recorded({
        sessionId: `cut-${kind.name}`,
        clock,
        // 50 ms a character: the greeting plays for 0.6 s, the answer for 2.4 s.
        channel: new TextChannel({ clock, playbackMsPerChar: 50 }),
        graph: oneAgent,
        llm: { fake: llm },
        getAgent: async () => testAgent({ id: 'a1', name: 'Ada' }),
      });
      session.start();
      await settle();
      await clock.advanceAsync(700); // the greeting plays out
      session.sendText('when are you open');
      await settle(100);
      await clock.advanceAsync(500); // a fifth of the answer
      session.sendText('thanks, bye');
      await settle(100);
      await clock.advanceAsync(100);
      await session.done;
      await rec.flush();
      const conv = await store.db
        .selectFrom('conversations')
        .select('id')
        .where('session_id', '=', `cut-${kind.name}`)
        .executeTakeFirstOrThrow();
      const msgs = await store.db
        .selectFrom('messages')
        .select(['role', 'content', 'interrupted', 'heard_chars'])
        .where('conversation_id', '=', conv.id)
        .orderBy('sequence')
        .execute();
      const heard = (m: { heard_chars?: number | null }) =>
        m.heard_chars == null ? null : Number(m.heard_chars);
      expect(msgs.map((m) => [m.role, m.content, Number(m.interrupted), heard(m)])).toEqual([
        ['assistant', 'Hello there.', 0, null],
        ['user', 'when are you open', 0, null],
        // A fifth of it played: "Our" whole, "opening" cut in the middle.
        ['assistant', 'Our opening hours are nine to five on weekdays.', 1, 3],
        ['user', 'thanks, bye', 0, null],
      ]);
    });

    it('stores text from outside sources (a model reply with NUL) with U+FFFD in its place', async () => {
      const clock = new FakeClock('2026-03-01T10:00:00Z');
      const llm = new ScriptedLlm({ clock, firstTokenMs: 0, replies: [{ text: 'a\u0000b \ud800' }] });
      const oneAgent = graph(
        [
          ['start', 'start'],
          ['a', 'agent', { agent_id: 'a1', max_turns: 1 }],
          ['bye', 'end'],
        ],
        [
          ['start', 'a'],
          ['a', 'bye'],
        ],
      );
      const { session, rec } = recorded({
        sessionId: `nul-${kind.name}`,
        clock,
        channel: new TextChannel({ clock }),
        graph: oneAgent,
        llm: { fake: llm },
        getAgent: async () => testAgent({ id: 'a1', name: 'Ada' }),
      });
      session.start();
      await settle();
      session.sendText('hello');
      await settle(100);
      await session.done;
      await rec.flush();
      const conv = await store.db
        .selectFrom('conversations')
        .select('id')
        .where('session_id', '=', `nul-${kind.name}`)
        .executeTakeFirstOrThrow();
      const msgs = await store.db
        .selectFrom('messages')
        .select(['role', 'content'])
        .where('conversation_id', '=', conv.id)
        .orderBy('sequence')
        .execute();
      expect(msgs).toEqual([
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'a\uFFFDb \uFFFD' },
      ]);
    });

    it("records the keys a caller pressed as the caller's turn, between the prompt and the answer", async () => {
      const clock = new FakeClock('2026-03-01T10:00:00Z');
      const pin = graph(
        [
          ['start', 'start'],
          ['ask', 'dtmf', { prompt: 'Your PIN, then hash.', save_to_variable: 'pin' }],
          ['ok', 'speak', { text: 'Thanks.' }],
          ['bye', 'end'],
        ],
        [
          ['start', 'ask'],
          ['ask', 'ok', 'success'],
          ['ok', 'bye'],
        ],
      );
      const { session, rec } = recorded({
        sessionId: `keys-${kind.name}`,
        clock,
        channel: new TextChannel({ clock }),
        graph: pin,
      });
      session.start();
      await settle();
      session.sendDtmf('12#');
      await settle(100);
      await session.done;
      await rec.flush();
      const conv = await store.db
        .selectFrom('conversations')
        .select('id')
        .where('session_id', '=', `keys-${kind.name}`)
        .executeTakeFirstOrThrow();
      const msgs = await store.db
        .selectFrom('messages')
        .select(['sequence', 'role', 'content', 'latency_ms'])
        .where('conversation_id', '=', conv.id)
        .orderBy('sequence')
        .execute();
      expect(msgs).toEqual([
        { sequence: 1, role: 'assistant', content: 'Your PIN, then hash.', latency_ms: null },
        { sequence: 2, role: 'user', content: 'Pressed 12#', latency_ms: null },
        { sequence: 3, role: 'assistant', content: 'Thanks.', latency_ms: null },
      ]);
    });

    it('keeps the workflow steps: nodes entered and left, keys pressed in them, the transfer, the error', async () => {
      const clock = new FakeClock('2026-03-01T10:00:00Z');
      const menu = graph(
        [
          ['start', 'start'],
          ['ask', 'dtmf', { prompt: 'Press 1 for sales.', num_digits: 1, save_to_variable: 'choice' }],
          ['sales', 'transfer_call', { destination: '+14155550123' }],
        ],
        [
          ['start', 'ask'],
          ['ask', 'sales', 'success'],
        ],
      );
      const stepsOf = async (sessionId: string) => {
        const row = await store.db
          .selectFrom('conversations')
          .select('steps')
          .where('session_id', '=', sessionId)
          .executeTakeFirstOrThrow();
        return JSON.parse(row.steps ?? '[]') as RecordedStep[];
      };
      const run = async (sessionId: string, g: typeof menu, keys: string) => {
        const { session, rec } = recorded({
          sessionId,
          clock,
          channel: new TextChannel({ clock }),
          graph: g,
        });
        session.start();
        await settle();
        // Written with the prompt: the steps so far, the one waiting for keys still open.
        await rec.flush();
        expect((await stepsOf(sessionId)).map((s) => [s.node_id, s.exited_at === null])).toEqual([
          ['start', false],
          ['ask', true],
        ]);
        await clock.advanceAsync(1500);
        session.sendDtmf(keys);
        await settle(100);
        await session.done;
        await rec.flush();
        return stepsOf(sessionId);
      };
      const at = (ms: number) => new Date(Date.parse('2026-03-01T10:00:00Z') + ms).toISOString();

      expect(await run(`steps-${kind.name}`, menu, '1')).toEqual([
        {
          node_id: 'start',
          node_type: 'start',
          entered_at: at(0),
          exited_at: at(0),
          handle: 'default',
          keys: null,
          transfer: null,
          error: null,
        },
        {
          node_id: 'ask',
          node_type: 'dtmf',
          entered_at: at(0),
          exited_at: at(1500),
          handle: 'success',
          keys: '1',
          transfer: null,
          error: null,
        },
        {
          node_id: 'sales',
          node_type: 'transfer_call',
          entered_at: at(1500),
          exited_at: at(1500),
          handle: 'success',
          keys: null,
          transfer: { destination: 'tel:+14155550123', mode: 'blind' },
          error: null,
        },
      ]);

      // No edge from the exit taken: the execution fails on that step, and the step says why.
      const dead = graph(
        [
          ['start', 'start'],
          ['ask', 'dtmf', { prompt: 'Press 1 for sales.', num_digits: 1, save_to_variable: 'choice' }],
        ],
        [['start', 'ask']],
      );
      const failed = await run(`dead-${kind.name}`, dead, '7');
      expect(failed.at(-1)).toMatchObject({ node_id: 'ask', handle: 'success', keys: '7' });
      expect(failed.at(-1)!.error).toEqual(expect.stringContaining('success'));
    });
  });
}
