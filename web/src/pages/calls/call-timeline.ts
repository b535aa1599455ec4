// A call's story in time order, from what the API gives: the call's states (arrived or queued,
// answered, ended with its reason), the workflow steps its session went through (the
// conversation's `steps`: each node with its type, what it said or asked, the keys pressed in it,
// the exit it left by, a transfer, an error), the legs a workflow dialled from it (calls with this
// call as `parent_call_id`) and the webhook events it caused.
import type { ConversationStep, Message } from '../../api/types';
import { formatDuration } from '../../components/format';
import { NODE_KINDS, handleLabel, isNodeType } from '../workflows/editor/node-catalog';

export interface TimelineCall {
  id: string;
  direction: string;
  status: string;
  to: string;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  hangup_reason: string | null;
  duration_seconds: number | null;
  answered_by?: string | null;
  parent_call_id?: string | null;
}

export interface TimelineDelivery {
  id: string;
  endpoint_id: string;
  status: string;
  event: { type: string; created_at: string };
}

/** A node of the version that ran, for what a step said or asked. */
export interface TimelineNode {
  id: string;
  type: string;
  config?: Record<string, unknown>;
}

export type EntryKind = 'call' | 'step' | 'leg' | 'event' | 'now';

export interface TimelineEntry {
  key: string;
  /** When it happened; null for "now" on a live call. */
  at: string | null;
  kind: EntryKind;
  tone: 'good' | 'bad' | 'warn' | 'info' | 'neutral';
  title: string;
  /** The node id, beside a step's type. */
  ref?: string;
  /** Lines under the title. */
  details: string[];
  /** Keys pressed, one per key. */
  keys?: string[];
  /** A status word to show as a badge. */
  badge?: string;
  /** Where the entry leads (a leg's call, the parent call, a webhook endpoint's log). */
  href?: string;
}

const ENDED = ['completed', 'no_answer', 'busy', 'failed', 'cancelled'];
const words = (s: string) => s.replace(/_/g, ' ');

/** A message of the call's conversation: who said what, and when. */
export type TimelineLine = Pick<Message, 'role' | 'content' | 'spoken_at'>;

const oneLine = (text: string) => text.trim().replace(/\s+/g, ' ');

/** The line a template (`You chose {{choice}}.`) became, among what was said; null if none fits. */
function spokenAs(template: string, said: string[]): string | null {
  const parts = template.split(/\{\{[^}]*\}\}/);
  if (parts.length < 2) return null;
  const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${parts.map(escape).join('.*?')}$`, 's');
  return said.find((line) => pattern.test(line)) ?? null;
}

/**
 * What a node says, asks or dials, from its config, short enough for a line. A template says what
 * it became where one of `said` (the assistant's lines from the step on) fits it.
 */
export function nodeSummary(node: TimelineNode | undefined, said: string[] = []): string | null {
  const config = node?.config ?? {};
  for (const field of ['text', 'prompt', 'announcement', 'destination', 'url', 'greeting']) {
    const value = config[field];
    if (typeof value === 'string' && value.trim() !== '') {
      const template = oneLine(value);
      const text =
        field === 'destination' || field === 'url' ? template : (spokenAs(template, said) ?? template);
      const short = text.length > 90 ? `${text.slice(0, 89)}…` : text;
      return field === 'destination' || field === 'url' ? short : `“${short}”`;
    }
  }
  return null;
}

/** Whole seconds between two times, as "3 s" / "1 min 4 s"; null under a second. */
export function spanText(from: string, to: string | null): string | null {
  if (!to) return null;
  const s = Math.round((Date.parse(to) - Date.parse(from)) / 1000);
  if (s < 1) return null;
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** The assistant's lines from a step's second on, one line each. */
function saidSince(lines: TimelineLine[], at: string): string[] {
  const from = Date.parse(at);
  return lines
    .filter((l) => l.role === 'assistant' && Date.parse(l.spoken_at) >= from)
    .map((l) => oneLine(l.content));
}

function stepEntry(
  step: ConversationStep,
  index: number,
  node: TimelineNode | undefined,
  lines: TimelineLine[],
): TimelineEntry {
  const label = isNodeType(step.node_type) ? NODE_KINDS[step.node_type].label : words(step.node_type);
  const details: string[] = [];
  const summary = nodeSummary(node, saidSince(lines, step.entered_at));
  if (summary) details.push(summary);
  if (step.transfer)
    details.push(
      `Transferred to ${step.transfer.destination} (${step.transfer.mode === 'warm' ? 'warm' : 'blind'})`,
    );
  if (step.error) details.push(`Failed: ${step.error}`);
  const took = spanText(step.entered_at, step.exited_at);
  // Where a step went next says something, except for a start, an end and a handed-over call.
  const final = step.node_type === 'end' || step.node_type === 'hangup';
  const quiet = final || step.node_type === 'start' || step.transfer !== null;
  if (!step.exited_at) details.push('Running now');
  else if (step.handle && !quiet)
    details.push(`Left by ${handleLabel(step.handle)}${took ? ` after ${took}` : ''}`);
  else if (!step.handle && !final) details.push(`The call ended here${took ? `, after ${took}` : ''}`);
  return {
    key: `step-${index}`,
    at: step.entered_at,
    kind: 'step',
    tone: step.error ? 'bad' : step.transfer ? 'good' : 'info',
    title: step.node_type === 'start' ? 'Workflow started' : label,
    ref: step.node_type === 'start' ? undefined : step.node_id,
    details,
    ...(step.keys ? { keys: [...step.keys] } : {}),
  };
}

function legEntry(leg: TimelineCall): TimelineEntry {
  const details = [leg.hangup_reason ? words(leg.hangup_reason) : null, durationText(leg)].filter(
    (d): d is string => d !== null,
  );
  return {
    key: `leg-${leg.id}`,
    at: leg.created_at,
    kind: 'leg',
    tone: leg.status === 'completed' ? 'good' : ENDED.includes(leg.status) ? 'warn' : 'info',
    title: `Dialled ${leg.to}`,
    details,
    badge: leg.status,
    href: `/calls/${leg.id}`,
  };
}

function durationText(c: TimelineCall): string | null {
  return c.duration_seconds ? `${formatDuration(c.duration_seconds)} long` : null;
}

function callEntries(c: TimelineCall): { first: TimelineEntry[]; last: TimelineEntry[] } {
  const inbound = c.direction === 'inbound';
  const first: TimelineEntry[] = [
    {
      key: 'created',
      at: c.created_at,
      kind: 'call',
      tone: 'neutral',
      title: inbound ? 'Call arrived' : c.parent_call_id ? 'Leg dialled by a workflow' : 'Call queued',
      details: c.parent_call_id ? ['From the call it was dialled from'] : [],
      ...(c.parent_call_id ? { href: `/calls/${c.parent_call_id}` } : {}),
    },
  ];
  if (c.started_at)
    first.push({
      key: 'answered',
      at: c.started_at,
      kind: 'call',
      tone: 'good',
      title: inbound ? 'Answered' : 'Connected',
      details: c.answered_by ? [`Answered by a ${c.answered_by}`] : [],
    });
  const last: TimelineEntry[] = [];
  if (ENDED.includes(c.status))
    last.push({
      key: 'ended',
      at: c.ended_at,
      kind: 'call',
      tone: c.status === 'completed' ? 'good' : c.status === 'failed' ? 'bad' : 'warn',
      title: `Ended: ${words(c.status)}`,
      details: [c.hangup_reason ? words(c.hangup_reason) : null, durationText(c)].filter(
        (d): d is string => d !== null,
      ),
    });
  else
    last.push({
      key: 'now',
      at: null,
      kind: 'now',
      tone: 'info',
      title: `Now: ${words(c.status)}`,
      details: [],
    });
  return { first, last };
}

/** Every entry of the call's timeline, oldest first (entries of the same second keep their order). */
export function callTimeline(input: {
  call: TimelineCall;
  steps?: ConversationStep[];
  legs?: TimelineCall[];
  deliveries?: TimelineDelivery[];
  nodes?: TimelineNode[];
  /** The conversation's messages: what a template step said is read from them. */
  messages?: TimelineLine[];
}): TimelineEntry[] {
  const { call: c, steps = [], legs = [], deliveries = [], nodes = [], messages = [] } = input;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const { first, last } = callEntries(c);
  const events: TimelineEntry[] = deliveries.map((d) => ({
    key: `event-${d.id}`,
    at: d.event.created_at,
    kind: 'event',
    tone: d.status === 'succeeded' ? 'good' : d.status === 'pending' ? 'info' : 'bad',
    title: `Webhook ${d.event.type}`,
    details: [],
    badge: d.status,
    href: `/webhooks/${d.endpoint_id}`,
  }));
  // call.started belongs with the answer, the rest with the end: a webhook sent in the same second
  // as the answer reads after it, not after every step of that second.
  const started = events.filter((e) => e.title === 'Webhook call.started');
  const others = events.filter((e) => e.title !== 'Webhook call.started');
  const ordered = [
    ...first,
    ...started,
    ...steps.map((s, i) => stepEntry(s, i, byId.get(s.node_id), messages)),
    ...legs.map(legEntry),
    ...(last[0]?.kind === 'now' ? others : []),
    ...last,
    ...(last[0]?.kind === 'now' ? [] : others),
  ];
  const time = (e: TimelineEntry) => (e.at ? Date.parse(e.at) : Number.POSITIVE_INFINITY);
  return ordered
    .map((e, i) => ({ e, i }))
    .sort((a, b) => time(a.e) - time(b.e) || a.i - b.i)
    .map(({ e }) => e);
}

/** "+0:07" from the call's start to `at`. */
export function offsetText(from: string, at: string): string {
  const s = Math.max(0, Math.round((Date.parse(at) - Date.parse(from)) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `+${h}:${String(m).padStart(2, '0')}:${sec}` : `+${m}:${sec}`;
}
