import { describe, expect, it } from 'vitest';
import { TextChannel } from '../channels/text-channel.js';
import { FakeClock } from '../shared/clock.js';
import {
  parseClientMessage,
  RealtimeConnection,
  toServerMessage,
  type ServerMessage,
} from './realtime-protocol.js';
import { SessionRegistry } from './session-runtime.js';
import { graph, settle } from '../../test/support/engine-harness.js';

const flow = graph(
  [
    ['start', 'start'],
    ['ask', 'dtmf', { prompt: 'Press 1', num_digits: 1, save_to_variable: 'choice' }],
    ['bye', 'speak', { text: 'You chose {{choice}}' }],
    ['end', 'end'],
  ],
  [
    ['start', 'ask'],
    ['ask', 'bye', 'success'],
    ['ask', 'end', 'timeout'],
    ['bye', 'end'],
  ],
);

function connect() {
  const clock = new FakeClock();
  const session = new SessionRegistry().create({
    sessionId: 's1',
    clock,
    channel: new TextChannel({ clock }),
    graph: flow,
  });
  const frames: ServerMessage[] = [];
  const closed: string[] = [];
  const conn = new RealtimeConnection(session, (f) => frames.push(JSON.parse(f) as ServerMessage), {
    onEnded: () => closed.push(frames.at(-1)!.type),
  });
  return { session, frames, conn, closed };
}

describe('parseClientMessage', () => {
  it('accepts the documented messages', () => {
    expect(parseClientMessage('{"type":"user_text","text":"hi","x":1}')).toEqual({
      ok: true,
      message: { type: 'user_text', text: 'hi' },
    });
    expect(parseClientMessage('{"type":"dtmf","digits":"12#"}')).toMatchObject({ ok: true });
    expect(parseClientMessage('{"type":"end"}')).toMatchObject({ ok: true });
  });

  it('refuses bad frames with a code', () => {
    expect(parseClientMessage('nope')).toMatchObject({ ok: false, code: 'invalid_json' });
    expect(parseClientMessage('[1]')).toMatchObject({ ok: false, code: 'invalid_json' });
    expect(parseClientMessage('{"type":"dtmf","digits":"12x"}')).toMatchObject({
      ok: false,
      code: 'invalid_message',
    });
    expect(parseClientMessage('{"type":"user_text","text":""}')).toMatchObject({
      ok: false,
      code: 'invalid_message',
    });
    expect(parseClientMessage('{"type":"audio"}')).toMatchObject({ ok: false, code: 'unknown_type' });
  });

  it('reads the WebRTC signalling frames, and refuses oversized and malformed ones', () => {
    expect(parseClientMessage('{"type":"webrtc_offer","sdp":"v=0"}')).toEqual({
      ok: true,
      message: { type: 'webrtc_offer', sdp: 'v=0' },
    });
    expect(parseClientMessage('{"type":"ice_candidate","candidate":null}')).toEqual({
      ok: true,
      message: { type: 'ice_candidate', candidate: null },
    });
    expect(parseClientMessage('{"type":"ice_candidate","candidate":"candidate:1","sdp_mid":"0"}')).toEqual({
      ok: true,
      message: { type: 'ice_candidate', candidate: 'candidate:1', sdp_mid: '0' },
    });
    expect(parseClientMessage('{"type":"webrtc_offer","sdp":5}')).toMatchObject({ code: 'invalid_message' });
    expect(parseClientMessage('{"type":"ice_candidate","candidate":7}')).toMatchObject({
      code: 'invalid_message',
    });
    expect(parseClientMessage('{"type":"ice_candidate","candidate":"c","sdp_mid":1}')).toMatchObject({
      code: 'invalid_message',
    });
    const big = JSON.stringify({ type: 'user_text', text: 'é'.repeat(40_000) });
    expect(parseClientMessage(big)).toMatchObject({ ok: false, code: 'frame_too_large' });
  });

  it('refuses user text that no store keeps as sent (NUL, unpaired surrogates)', () => {
    expect(parseClientMessage('{"type":"user_text","text":"a\\u0000b"}')).toEqual({
      ok: false,
      code: 'invalid_message',
      message: 'text must not contain the NUL character (\\u0000).',
    });
    expect(parseClientMessage('{"type":"user_text","text":"\\ud800"}')).toMatchObject({
      ok: false,
      code: 'invalid_message',
    });
  });
});

describe('RealtimeConnection', () => {
  it('starts the session and streams node, text, status and ended frames', async () => {
    const { frames, conn, session, closed } = connect();
    await settle();
    conn.receive('{"type":"dtmf","digits":"1"}');
    await session.done;
    expect(closed).toEqual(['ended']);
    expect(frames.map((f) => f.type)).toEqual([
      'ready',
      'status',
      'node',
      'node',
      'node',
      'assistant_text',
      'node',
      'node',
      'assistant_text',
      'node',
      'node',
      'node',
      'status',
      'status',
      'ended',
    ]);
    expect(frames).toContainEqual({ type: 'assistant_text', text: 'You chose 1' });
    expect(frames.at(-3)).toEqual({ type: 'status', status: 'active', execution_status: 'completed' });
    expect(frames.at(-1)).toEqual({ type: 'ended', end_reason: 'completed', duration_seconds: 0 });
  });

  it('tells the client when the user cut the last assistant output short', () => {
    expect(toServerMessage({ type: 'message.interrupted', at: 0, node_id: 'ask' })).toEqual({
      type: 'assistant_interrupted',
    });
    // With how much of it was heard, when the channel could tell.
    expect(toServerMessage({ type: 'message.interrupted', at: 0, node_id: 'ask', heard_chars: 16 })).toEqual({
      type: 'assistant_interrupted',
      heard_chars: 16,
    });
  });

  it("shows the client the keys a dial node's party pressed, with the leg's call id", () => {
    expect(
      toServerMessage({ type: 'dial.dtmf', at: 0, digits: '5', call_id: 'leg-1', node_id: 'dial' }),
    ).toEqual({ type: 'dial_dtmf', digits: '5', call_id: 'leg-1' });
  });

  it('holds the ended frame until the end is stored, then closes', async () => {
    const clock = new FakeClock();
    const session = new SessionRegistry().create({
      sessionId: 's2',
      clock,
      channel: new TextChannel({ clock }),
      graph: flow,
    });
    const frames: ServerMessage[] = [];
    let store: () => void = () => undefined;
    const stored = new Promise<void>((resolve) => (store = resolve));
    let closed = false;
    const conn = new RealtimeConnection(session, (f) => frames.push(JSON.parse(f) as ServerMessage), {
      endStored: () => stored,
      onEnded: () => (closed = true),
    });
    await settle();
    conn.receive('{"type":"end"}');
    await session.done;
    await settle();
    expect(frames.map((f) => f.type)).not.toContain('ended');
    expect(closed).toBe(false);
    store();
    await settle();
    expect(frames.at(-1)).toMatchObject({ type: 'ended', end_reason: 'client_ended' });
    expect(closed).toBe(true);
  });

  it('answers errors and pings; end ends the session as client_ended', async () => {
    const { frames, conn, session } = connect();
    conn.receive('{"type":"bogus"}');
    conn.receive('{"type":"ping","id":"7"}');
    expect(frames.filter((f) => f.type === 'error' || f.type === 'pong')).toEqual([
      { type: 'error', code: 'unknown_type', message: 'Unknown message type "bogus".' },
      { type: 'pong', id: '7' },
    ]);
    conn.receive('{"type":"end"}');
    expect((await session.done).endReason).toBe('client_ended');
    conn.receive('{"type":"user_text","text":"late"}');
    expect(frames.at(-1)).toMatchObject({ type: 'error', code: 'session_ended' });
  });

  it('closing the socket ends the session as client_disconnected', async () => {
    const { conn, session } = connect();
    await settle();
    conn.close();
    expect((await session.done).endReason).toBe('client_disconnected');
  });

  it('with two sockets on one session, it ends only when the last one closes', async () => {
    const { conn, session, frames } = connect();
    const second: ServerMessage[] = [];
    const other = new RealtimeConnection(session, (f) => second.push(JSON.parse(f) as ServerMessage));
    await settle();
    other.close();
    conn.close();
    conn.close(); // a second close of one socket does not count twice
    expect((await session.done).endReason).toBe('client_disconnected');
    expect(second[0]).toMatchObject({ type: 'ready' });
    expect(frames[0]).toMatchObject({ type: 'ready' });
  });

  it('one of two sockets closing leaves the session running for the other', async () => {
    const { session, frames } = connect();
    const other = new RealtimeConnection(session, () => undefined);
    await settle();
    other.close();
    await settle();
    expect(session.status).toBe('active');
    session.sendDtmf('1');
    expect((await session.done).endReason).toBe('completed');
    expect(frames.some((f) => f.type === 'assistant_text' && f.text === 'You chose 1')).toBe(true);
  });
});
