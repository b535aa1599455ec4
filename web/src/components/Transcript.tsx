// A conversation's messages as a chat, in spoken order, each with who spoke, when, and how long
// the reply took (latency_ms, the per-turn latency). Keys the caller pressed ("Pressed 12#", as
// the transcript records them) show as keypad keys.
import type { Message } from '../api/types';

type Said = { role: string; content: string };

/** The keys of a recorded keypress turn, or null for words. */
export function pressedKeys(m: Said): string[] | null {
  const keys = m.role === 'user' ? /^Pressed ([0-9A-D*#]+)$/.exec(m.content)?.[1] : undefined;
  return keys ? [...keys] : null;
}

/** What a turn said: its words, or the keys pressed as keypad keys (read out as recorded). */
export function TurnContent({ message }: { message: Said }) {
  const keys = pressedKeys(message);
  if (!keys) return <div>{message.content}</div>;
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
