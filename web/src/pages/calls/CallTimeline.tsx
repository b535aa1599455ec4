// The call's timeline (call-timeline.ts) as a list: time since the call began on the left (the
// clock time on hover and for screen readers), a marker coloured by what happened, and the entry.
import { Link } from 'react-router';
import { Badge } from '../../components/Badge';
import type { TimelineEntry } from './call-timeline';
import { offsetText } from './call-timeline';

const KIND_TEXT: Record<TimelineEntry['kind'], string> = {
  call: 'Call',
  step: 'Workflow step',
  leg: 'Dialled leg',
  event: 'Webhook',
  now: 'Now',
};

function EntryTime({ start, at }: { start: string; at: string | null }) {
  if (!at) return <span className="tl-time muted">now</span>;
  const clock = new Date(at).toLocaleTimeString();
  return (
    <time className="tl-time" dateTime={at} title={clock}>
      <span aria-hidden="true">{offsetText(start, at)}</span>
      <span className="sr-only">{clock}</span>
    </time>
  );
}

function Title({ entry }: { entry: TimelineEntry }) {
  const text = (
    <>
      <strong>{entry.title}</strong>
      {entry.ref && <span className="tl-ref mono">{entry.ref}</span>}
    </>
  );
  return (
    <div className="tl-title">
      <span className="sr-only">{KIND_TEXT[entry.kind]}: </span>
      {entry.href ? <Link to={entry.href}>{text}</Link> : text}
      {entry.badge && <Badge value={entry.badge} />}
    </div>
  );
}

export function CallTimeline({ start, entries }: { start: string; entries: TimelineEntry[] }) {
  return (
    <ol className="call-timeline" aria-label="Call timeline">
      {entries.map((e) => (
        <li key={e.key} className={`tl-entry tl-${e.kind} tl-tone-${e.tone}`} data-kind={e.kind}>
          <EntryTime start={start} at={e.at} />
          <span className="tl-marker" aria-hidden="true" />
          <div className="tl-body">
            <Title entry={e} />
            {e.keys && (
              <div className="turn-keys tl-keys">
                <span className="sr-only">Pressed {e.keys.join('')}</span>
                <span aria-hidden="true" className="muted">
                  Pressed
                </span>
                {e.keys.map((k, i) => (
                  <kbd key={i} aria-hidden="true">
                    {k}
                  </kbd>
                ))}
              </div>
            )}
            {e.details.map((d) => (
              <div key={d} className={d.startsWith('Failed:') ? 'tl-detail tl-error' : 'tl-detail muted'}>
                {d}
              </div>
            ))}
          </div>
        </li>
      ))}
    </ol>
  );
}
