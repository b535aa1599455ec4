// How times, durations and ids read on screen.
export function formatTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m ? `${m} min ${s} s` : `${s} s`;
}

export function shortId(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : '—';
}

export function relative(value: string | null | undefined, now = Date.now()): string {
  if (!value) return 'never';
  const seconds = Math.round((now - new Date(value).getTime()) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

/** Who did something, as the API names them (`api_key:<uuid>`), short enough for a line. */
export function formatActor(actor: string | null | undefined): string {
  if (!actor) return 'unknown';
  const [kind, id] = actor.split(':', 2);
  if (kind === 'api_key' && id) return `API key ${id.slice(0, 8)}`;
  return actor;
}
