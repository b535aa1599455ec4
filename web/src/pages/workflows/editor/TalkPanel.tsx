// Talk to it: a live conversation with the latest published version, the transcript as it comes,
// and the step it is on lit up on the canvas. The transport (text socket today, browser voice
// later) sits behind talk-channel.ts; this panel only shows events and sends what is typed.
import { useEffect, useRef, useState } from 'react';
import { ApiError, explain } from '../../../api/errors';
import { textTransport, type TalkChannel, type TalkEvent, type TalkTransport } from './talk-channel';

/** Transports offered, first available wins; browser voice is added here when it exists. */
export const TRANSPORTS: TalkTransport[] = [textTransport];

interface Line {
  who: 'caller' | 'workflow' | 'system';
  text: string;
}

export function TalkPanel({
  projectId,
  workflowId,
  published,
  onNode,
}: {
  projectId: string;
  workflowId: string;
  published: number | null;
  onNode: (nodeId: string | null) => void;
}) {
  const [lines, setLines] = useState<Line[]>([]);
  const [channel, setChannel] = useState<TalkChannel | null>(null);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const channelRef = useRef<TalkChannel | null>(null);
  const transport = TRANSPORTS.find((t) => t.available()) ?? textTransport;

  useEffect(() => () => channelRef.current?.end(), []);

  const onEvent = (e: TalkEvent) => {
    if (e.type === 'assistant') setLines((l) => [...l, { who: 'workflow', text: e.text }]);
    else if (e.type === 'node' && e.event === 'entered') onNode(e.nodeId);
    else if (e.type === 'ended') {
      setLines((l) => [...l, { who: 'system', text: `Session ended (${e.reason.replace(/_/g, ' ')}).` }]);
      setChannel(null);
      channelRef.current = null;
      onNode(null);
    } else if (e.type === 'error') setError(e.message);
  };

  const start = async () => {
    setBusy(true);
    setError(null);
    setLines([]);
    try {
      const c = await transport.open({ projectId, workflowId, variables: {} }, onEvent);
      channelRef.current = c;
      setChannel(c);
    } catch (err) {
      setError(err instanceof ApiError ? explain(err) : String(err));
    } finally {
      setBusy(false);
    }
  };

  const send = (event: React.FormEvent) => {
    event.preventDefault();
    const t = text.trim();
    if (!t || !channel) return;
    const digits = /^(?:dtmf:\s*|#)([0-9*#A-D]+)$/i.exec(t)?.[1];
    if (digits) channel.sendDigits(digits.toUpperCase());
    else channel.sendText(t);
    setLines((l) => [...l, { who: 'caller', text: t }]);
    setText('');
  };

  if (!published) {
    return (
      <section className="panel-body" aria-label="Talk to it">
        <p className="muted">Publish the workflow first: conversations run the latest published version.</p>
      </section>
    );
  }
  return (
    <section className="panel-body" aria-label="Talk to it">
      <p className="muted">
        A {transport.label.toLowerCase()} conversation with version {published}. Type what a caller would say;{' '}
        <code>dtmf:123#</code> presses keys.
      </p>
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      <ol className="transcript" aria-label="Conversation" aria-live="polite">
        {lines.map((l, i) => (
          <li
            key={i}
            className={`turn ${l.who === 'caller' ? 'turn-user' : l.who === 'system' ? 'turn-system' : ''}`}
          >
            <span className="turn-meta">
              {l.who === 'caller' ? 'You' : l.who === 'workflow' ? 'Workflow' : ''}
            </span>{' '}
            {l.text}
          </li>
        ))}
      </ol>
      {channel ? (
        <form className="talk-input" onSubmit={send} aria-label="Say something">
          <label htmlFor="talk-text" className="sr-only">
            Your message
          </label>
          <input id="talk-text" value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" />
          <button type="submit" className="btn btn-primary">
            Send
          </button>
          <button type="button" className="btn" onClick={() => channel.end()}>
            Hang up
          </button>
        </form>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={busy}>
          {busy ? 'Connecting…' : 'Start a conversation'}
        </button>
      )}
    </section>
  );
}
