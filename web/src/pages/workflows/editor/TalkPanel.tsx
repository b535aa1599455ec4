// Talk to it: a live conversation with the latest published version, by voice (the microphone)
// or by typing, the transcript as it comes, and the step it is on lit up on the canvas. The
// transports sit behind talk-channel.ts; this panel only shows events and sends what is entered.
import { useEffect, useRef, useState } from 'react';
import { ApiError, explain } from '../../../api/errors';
import {
  textTransport,
  voiceTransport,
  type TalkChannel,
  type TalkEvent,
  type TalkTransport,
} from './talk-channel';

/** Transports offered, in this order, where the browser can use them. */
export const TRANSPORTS: TalkTransport[] = [voiceTransport, textTransport];

interface Line {
  who: 'caller' | 'workflow' | 'system';
  text: string;
}

/**
 * A conversation over `transport`: its lines as they come, the channel while it is up, what went
 * wrong; the step it is on goes to `onNode`. Ended when the panel goes.
 */
function useConversation(
  transport: TalkTransport,
  target: { projectId: string; workflowId: string },
  onNode: (nodeId: string | null) => void,
) {
  const [lines, setLines] = useState<Line[]>([]);
  const [channel, setChannel] = useState<TalkChannel | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const channelRef = useRef<TalkChannel | null>(null);

  useEffect(() => () => channelRef.current?.end(), []);

  const onEvent = (e: TalkEvent) => {
    if (e.type === 'assistant') setLines((l) => [...l, { who: 'workflow', text: e.text }]);
    else if (e.type === 'user' && transport.id === 'voice')
      setLines((l) => [...l, { who: 'caller', text: e.text }]);
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
      const c = await transport.open({ ...target, variables: {} }, onEvent);
      channelRef.current = c;
      setChannel(c);
    } catch (err) {
      setError(err instanceof ApiError ? explain(err) : String(err));
    } finally {
      setBusy(false);
    }
  };
  return { lines, setLines, channel, error, setError, busy, start };
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
  const [text, setText] = useState('');
  const offered = TRANSPORTS.filter((t) => t.available());
  const [transportId, setTransportId] = useState(offered[0]?.id ?? 'text');
  const transport = offered.find((t) => t.id === transportId) ?? textTransport;
  const { lines, setLines, channel, error, setError, busy, start } = useConversation(
    transport,
    { projectId, workflowId },
    onNode,
  );

  const send = (event: React.FormEvent) => {
    event.preventDefault();
    const t = text.trim();
    if (!t || !channel) return;
    const digits = /^(?:dtmf:\s*|#)([0-9*#A-D]+)$/i.exec(t)?.[1];
    if (digits) channel.sendDigits(digits.toUpperCase());
    else if (channel.sendText) channel.sendText(t);
    else return setError('On a voice call, speak; type only keys here (dtmf:123#).');
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
      <p className="muted">Runs version {published}, the one numbers and sessions run.</p>
      {!channel && offered.length > 1 && (
        <TransportChoice offered={offered} chosen={transport.id} onChoose={setTransportId} />
      )}
      {channel && (
        <p className="muted">
          {transport.id === 'voice' ? 'Speak now; ' : 'Type what a caller would say; '}
          <code>dtmf:123#</code> presses keys.
        </p>
      )}
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      <TalkTranscript lines={lines} />
      {channel ? (
        <TalkInput
          voice={transport.id === 'voice'}
          text={text}
          onText={setText}
          onSubmit={send}
          onHangUp={() => channel.end()}
        />
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={busy}>
          {busy ? 'Connecting…' : 'Start a conversation'}
        </button>
      )}
    </section>
  );
}

/** The ways to talk this browser can use (voice, typing), before a conversation starts. */
function TransportChoice({
  offered,
  chosen,
  onChoose,
}: {
  offered: TalkTransport[];
  chosen: TalkTransport['id'];
  onChoose: (id: TalkTransport['id']) => void;
}) {
  return (
    <fieldset className="config-group talk-mode">
      <legend>How to talk</legend>
      {offered.map((t) => (
        <div className="choice-row" key={t.id}>
          <input
            type="radio"
            id={`talk-${t.id}`}
            name="talk-mode"
            checked={chosen === t.id}
            onChange={() => onChoose(t.id)}
          />
          <label htmlFor={`talk-${t.id}`}>
            <strong>{t.label}</strong>: {t.description}
          </label>
        </div>
      ))}
    </fieldset>
  );
}

/** What was said, by whom, as it comes. */
function TalkTranscript({ lines }: { lines: Line[] }) {
  return (
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
  );
}

/** The reply box of a conversation under way (keys only on a voice call), send and hang up. */
function TalkInput({
  voice,
  text,
  onText,
  onSubmit,
  onHangUp,
}: {
  voice: boolean;
  text: string;
  onText: (text: string) => void;
  onSubmit: (event: React.FormEvent) => void;
  onHangUp: () => void;
}) {
  return (
    <form className="talk-input" onSubmit={onSubmit} aria-label="Say something">
      <label htmlFor="talk-text" className="sr-only">
        {voice ? 'Keys to press' : 'Your message'}
      </label>
      <input
        id="talk-text"
        value={text}
        onChange={(e) => onText(e.target.value)}
        autoComplete="off"
        placeholder={voice ? 'e.g. dtmf:1' : 'Type a reply'}
      />
      <button type="submit" className="btn btn-primary">
        Send
      </button>
      <button type="button" className="btn" onClick={onHangUp}>
        Hang up
      </button>
    </form>
  );
}
