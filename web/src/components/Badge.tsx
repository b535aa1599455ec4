// A status as a coloured word: green for good endings, amber for in between, red for failures.
// The words are written in sentence case ("No answer", "Live: v2") by the component, not by CSS,
// so what is seen is what is read out and searched; a version tag ("v3") stays as it is.
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

/** An API value as a badge's words: underscores become spaces, the first letter a capital. */
export function badgeText(value: string): string {
  const words = value.replace(/_/g, ' ');
  return /^v\d/.test(words) ? words : words.charAt(0).toUpperCase() + words.slice(1);
}

export function Badge({ value, tone }: { value: string; tone?: string }) {
  return <span className={`badge badge-${tone ?? TONES[value] ?? 'neutral'}`}>{badgeText(value)}</span>;
}
