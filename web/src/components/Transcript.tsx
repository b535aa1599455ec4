// A conversation's messages as a chat, in spoken order, each with who spoke, when, and how long
// the reply took (latency_ms, the per-turn latency). Keys the caller pressed ("Pressed 12#", as
// the transcript records them) show as keypad keys. An assistant message the caller cut short is
// marked so; when the service could tell how much of it was heard (heard_chars, an estimate from
// the audio played), the rest is greyed out and read out as not heard.
import type { Message } from '../api/types';

type Said = { role: string; content: string; interrupted?: boolean; heard_chars?: number | null };

/** The keys of a recorded keypress turn, or null for words. */
export function pressedKeys(m: Said): string[] | null {
  const keys = m.role === 'user' ? /^Pressed ([0-9A-D*#]+)$/.exec(m.content)?.[1] : undefined;
  return keys ? [...keys] : null;
}

/** What a turn said: its words, or the keys pressed as keypad keys (read out as recorded). */
export function TurnContent({ message }: { message: Said }) {
  const keys = pressedKeys(message);
  if (!keys) return message.interrupted ? <CutShort message={message} /> : <div>{message.content}</div>;
  return (
    <div className="turn-keys">
      <span className="sr-only">{message.content}</span>
      <span aria-hidden="true">Pressed</span>
      {keys.map((k, i) => (
        <kbd key={i} aria-hidden="true">
          {k}
        </kbd>
      ))}
    </div>
  );
}

/** Words the caller cut short: the heard part as said, the rest (when known) greyed out. */
function CutShort({ message }: { message: Said }) {
  const { content, heard_chars: heard } = message;
  const known = typeof heard === 'number' && heard < content.length;
  return (
    <div>
      {known ? content.slice(0, heard) : content}
      {known && (
        <span className="unheard">
          <span className="sr-only"> Not heard: </span>
          {content.slice(heard)}
        </span>
      )}
      <span className="cut"> (interrupted)</span>
    </div>
  );
}

export function Transcript({ messages, live }: { messages: Message[]; live?: boolean }) {
  const ordered = [...messages].sort((a, b) => a.sequence - b.sequence);
  if (ordered.length === 0)
    return <p className="muted">{live ? 'Waiting for the first words…' : 'No messages.'}</p>;
  return (
    <ol className="transcript" aria-label="Transcript" aria-live={live ? 'polite' : undefined}>
      {ordered.map((m) => (
        <li key={m.sequence} className={`turn turn-${m.role}`}>
          <div className="turn-meta">
            <strong>
              {m.role === 'assistant' ? (m.agent_name ?? 'Assistant') : m.role === 'user' ? 'Caller' : m.role}
            </strong>
            <span>{new Date(m.spoken_at).toLocaleTimeString()}</span>
            {m.latency_ms !== null && (
              <span title="Time from the end of the caller's turn to this reply">{m.latency_ms} ms</span>
            )}
          </div>
          <TurnContent message={m} />
        </li>
      ))}
    </ol>
  );
}
