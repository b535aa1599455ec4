// A status as a coloured word: green for good endings, amber for in between, red for failures.
const TONES: Record<string, string> = {
  active: 'good',
  completed: 'good',
  succeeded: 'good',
  ended: 'neutral',
  in_progress: 'info',
  ringing: 'info',
  queued: 'info',
  pending: 'info',
  paused: 'warn',
  no_answer: 'warn',
  busy: 'warn',
  cancelled: 'neutral',
  failed: 'bad',
  dead: 'bad',
  inbound: 'neutral',
  outbound: 'neutral',
  published: 'good',
  draft: 'neutral',
  revoked: 'bad',
};

export function Badge({ value, tone }: { value: string; tone?: string }) {
  return (
    <span className={`badge badge-${tone ?? TONES[value] ?? 'neutral'}`}>{value.replace(/_/g, ' ')}</span>
  );
}
