// A conversation's messages as a chat, in spoken order, each with who spoke, when, and how long
// the reply took (latency_ms, the per-turn latency).
import type { Message } from '../api/types';

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
          <div>{m.content}</div>
        </li>
      ))}
    </ol>
  );
}
