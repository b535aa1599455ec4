// "Talk to it": a conversation with the workflow's latest published version, behind one small
// interface so the panel does not care how it travels. Two transports: browser voice (the
// microphone over WebRTC, through switchboard/web, loaded only when used) and the session's
// realtime text socket (typed turns). Both start with POST /sessions and emit the same events.
import { api, call } from '../../../api/client';

export type TalkEvent =
  | { type: 'ready'; sessionId: string }
  | { type: 'assistant'; text: string; latencyMs?: number }
  | { type: 'user'; text: string }
  | { type: 'node'; nodeId: string; event: 'entered' | 'exited' }
  | { type: 'ended'; reason: string }
  | { type: 'error'; message: string };

export interface TalkChannel {
  /** Typed turns; absent on voice, where the caller speaks. */
  sendText?: (text: string) => void;
  sendDigits(digits: string): void;
  /** Ends the session (the service records `client_disconnected` or `completed`). */
  end(): void;
}

export interface TalkTransport {
  id: 'text' | 'voice';
  /** Shown to the person choosing. */
  description: string;
  label: string;
  /** Whether this browser and service can use it now. */
  available: () => boolean;
  open(
    target: { projectId: string; workflowId: string; variables: Record<string, unknown> },
    onEvent: (event: TalkEvent) => void,
  ): Promise<TalkChannel>;
}

/** One realtime frame from the service as a TalkEvent (null: not shown). */
export function eventOfFrame(raw: string): TalkEvent | null {
  let f: Record<string, unknown>;
  try {
    f = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (f.type) {
    case 'ready':
      return { type: 'ready', sessionId: String(f.session_id) };
    case 'assistant_text':
      return {
        type: 'assistant',
        text: String(f.text),
        ...(typeof f.latency_ms === 'number' ? { latencyMs: f.latency_ms } : {}),
      };
    case 'user_text':
      return { type: 'user', text: String(f.text) };
    case 'node':
      return { type: 'node', nodeId: String(f.node_id), event: f.event === 'exited' ? 'exited' : 'entered' };
    case 'ended':
      return { type: 'ended', reason: String(f.end_reason) };
    case 'error':
      return { type: 'error', message: String(f.message) };
    default:
      return null;
  }
}

/** A web session on the latest published version: its realtime URL and join token. */
async function mintSession(target: {
  projectId: string;
  workflowId: string;
  variables: Record<string, unknown>;
}): Promise<{ realtime_url: string; join_token: string }> {
  const { data } = await call(
    api.POST('/api/v1/sessions', {
      body: {
        project_id: target.projectId,
        workflow_id: target.workflowId,
        variables: target.variables as Record<string, string>,
        metadata: { source: 'dashboard' },
      },
    }),
  );
  return data as unknown as { realtime_url: string; join_token: string };
}

export const voiceTransport: TalkTransport = {
  id: 'voice',
  label: 'Voice',
  description: 'Speak through your microphone and hear the workflow, as a caller would.',
  available: () =>
    typeof RTCPeerConnection !== 'undefined' && typeof navigator !== 'undefined' && !!navigator.mediaDevices,
  async open(target, onEvent) {
    const session = await mintSession(target);
    const { joinCall, JoinError } = await import('switchboard/web');
    try {
      const voice = await joinCall({ token: session.join_token, baseUrl: window.location.origin });
      onEvent({ type: 'ready', sessionId: voice.sessionId });
      voice.on('transcript', (t) =>
        onEvent(
          t.role === 'assistant'
            ? {
                type: 'assistant',
                text: t.text,
                ...(t.latencyMs !== undefined ? { latencyMs: t.latencyMs } : {}),
              }
            : { type: 'user', text: t.text },
        ),
      );
      voice.on('node', (n) => onEvent({ type: 'node', nodeId: n.nodeId, event: n.event }));
      voice.on('ended', (e) => onEvent({ type: 'ended', reason: e.reason }));
      voice.on('error', (e) => onEvent({ type: 'error', message: e.message }));
      return { sendDigits: (d) => voice.sendDigits(d), end: () => void voice.hangUp() };
    } catch (err) {
      // The microphone refused, the token expired…: the module's own sentence says which.
      throw new Error(err instanceof JoinError ? err.message : String(err));
    }
  },
};

export const textTransport: TalkTransport = {
  id: 'text',
  label: 'Text',
  description: 'Type what a caller would say.',
  available: () => typeof WebSocket !== 'undefined',
  async open(target, onEvent) {
    const session = await mintSession(target);
    const url = new URL(session.realtime_url, window.location.href);
    // The service builds the URL from PUBLIC_BASE_URL; a dashboard opened on another host name
    // (a tunnel, 127.0.0.1 vs localhost) still talks to the origin it was served from.
    url.protocol = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.host = window.location.host;
    url.searchParams.set('token', session.join_token);
    const socket = new WebSocket(url);
    let closed = false;
    socket.onmessage = (m) => {
      const event = eventOfFrame(String(m.data));
      // The service closes the socket after `ended`: that close is not a second ending.
      if (event?.type === 'ended') closed = true;
      if (event) onEvent(event);
    };
    socket.onclose = () => {
      if (!closed) onEvent({ type: 'ended', reason: 'disconnected' });
      closed = true;
    };
    socket.onerror = () => onEvent({ type: 'error', message: 'The connection to the session failed.' });
    const send = (frame: object) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
      else socket.addEventListener('open', () => socket.send(JSON.stringify(frame)), { once: true });
    };
    return {
      sendText: (text) => send({ type: 'user_text', text }),
      sendDigits: (digits) => send({ type: 'dtmf', digits }),
      end: () => {
        send({ type: 'end' });
        setTimeout(() => socket.close(), 500);
      },
    };
  },
};
