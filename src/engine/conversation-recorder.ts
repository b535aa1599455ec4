// Fills the transcript live from the event stream: one `conversations` row per session (created
// when the recorder attaches) and one `messages` row per message event, numbered from 1; keys
// pressed in a keypad node are a `user` message "Pressed <keys>".
// spoken_at is the event's time; latency_ms (assistant messages after a user turn) is rounded, and
// its parts (`latency`) are stored as JSON beside it. An interruption (message.interrupted) marks
// the last assistant message as cut short.
// The workflow steps (node.entered … node.exited, with the keys pressed in a step, a transfer it
// made, the error it failed with) are kept in memory and written whole as JSON with the update that
// follows each message, and once more when the execution ends: live to the last message, complete
// at the end, and no statement of their own on the way.
// agent_name is stored only once a second agent has spoken in the session (the API's conversations: "present
// when multiple agents ran"); at that moment earlier agent messages get their names filled in.
import { toDbTime, type Executor } from '../store/database.js';
import { newId as defaultNewId, type IdGenerator } from '../shared/ids.js';
import { storableText } from '../shared/text.js';
import { keypressText, type EngineEvent, type EventStream } from './events.js';
import { sessionRecordingRepo as repo } from './session-recording.repo.js';
import { WriteQueue } from './write-queue.js';

export interface RecorderOptions {
  db: Executor;
  workspaceId: string;
  projectId: string;
  sessionId: string;
  newId?: IdGenerator;
  onError?: (err: unknown) => void;
}

/** One workflow step as the conversation keeps it (times as stored; docs/conversations.md). */
export interface RecordedStep {
  node_id: string;
  node_type: string;
  entered_at: string;
  exited_at: string | null;
  /** The exit the step left by; null while it runs, or when the execution ended inside it. */
  handle: string | null;
  /** Keys the caller pressed in this step, in order, the terminator included. */
  keys: string | null;
  transfer: { destination: string; mode: 'blind' | 'warm' } | null;
  /** Why the execution failed in this step. */
  error: string | null;
}

/** Steps kept per conversation: a looping workflow records its first this many. */
export const MAX_RECORDED_STEPS = 200;

const EXECUTION_ENDS = new Set([
  'execution.completed',
  'execution.transferred',
  'execution.failed',
  'execution.cancelled',
]);

export class ConversationRecorder {
  private readonly queue: WriteQueue;
  private readonly newId: IdGenerator;
  private conversationId: string | null = null;
  private sequence = 0;
  /** Agent name → sequences of its messages, kept until a second agent makes names visible. */
  private readonly agentMessages = new Map<string, number[]>();
  private namesVisible = false;
  /** The sequence of the last assistant message: the one an interruption cuts short. */
  private lastAssistant: number | null = null;
  private readonly steps: RecordedStep[] = [];
  /** The steps changed since they were last written. */
  private stepsChanged = false;
  /** More steps ran than are kept: what follows belongs to none of the kept ones. */
  private stepsCapped = false;

  constructor(private readonly options: RecorderOptions) {
    this.queue = new WriteQueue(options.onError);
    this.newId = options.newId ?? defaultNewId;
  }

  /** Subscribes to the stream; returns the unsubscribe function. */
  attach(stream: EventStream, now: number): () => void {
    this.queue.push(() => this.ensureConversation(now));
    return stream.subscribe((e) => this.handle(e));
  }

  /** The conversation id once created (after the first flush). */
  get id(): string | null {
    return this.conversationId;
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  /** The steps so far as JSON when they changed since the last write (and marks them written). */
  private takeSteps(): string | null {
    if (!this.stepsChanged) return null;
    this.stepsChanged = false;
    return JSON.stringify(this.steps);
  }

  /** Notes what `event` tells about the workflow's steps; true when the steps changed. */
  private noteStep(event: EngineEvent): boolean {
    if (event.type === 'node.entered') {
      if (this.steps.length >= MAX_RECORDED_STEPS) {
        this.stepsCapped = true;
        return false;
      }
      this.steps.push({
        node_id: event.node_id,
        node_type: event.node_type,
        entered_at: toDbTime(event.at),
        exited_at: null,
        handle: null,
        keys: null,
        transfer: null,
        error: null,
      });
      return true;
    }
    const step = this.steps.at(-1);
    if (!step || this.stepsCapped) return false;
    const at = toDbTime(event.at);
    switch (event.type) {
      case 'node.exited':
        if (event.node_id !== step.node_id || step.exited_at !== null) return false;
        step.exited_at = at;
        step.handle = event.handle;
        return true;
      case 'dtmf':
        if (!event.keys || step.exited_at !== null) return false;
        step.keys = (step.keys ?? '') + event.keys;
        return true;
      case 'execution.transferred':
        step.transfer = { destination: event.destination, mode: event.mode };
        break;
      case 'execution.failed':
        step.error = event.error.message;
        break;
      case 'execution.completed':
      case 'execution.cancelled':
        break;
      default:
        return false;
    }
    // The execution ended: a step it ended inside (a hangup, an abort) ends with it, by no exit.
    step.exited_at ??= at;
    return true;
  }

  handle(event: EngineEvent): void {
    if (this.noteStep(event)) this.stepsChanged = true;
    if (EXECUTION_ENDS.has(event.type)) {
      const at = toDbTime(event.at);
      this.queue.push(async () => {
        const steps = this.takeSteps();
        if (steps !== null) await repo.touchConversation(this.options.db, this.conversationId!, at, steps);
      });
      return;
    }
    // Keys the caller pressed are the caller's turn too: "Pressed 1234#".
    if (event.type === 'dtmf' && event.keys) {
      this.handle({ type: 'message', at: event.at, role: 'user', content: keypressText(event.keys) });
      return;
    }
    if (event.type === 'message.interrupted') {
      const sequence = this.lastAssistant;
      if (sequence === null) return;
      const heard = event.heard_chars ?? null;
      this.queue.push(() => repo.markInterrupted(this.options.db, this.conversationId!, sequence, heard));
      return;
    }
    if (event.type !== 'message') return;
    const sequence = ++this.sequence;
    if (event.role === 'assistant') this.lastAssistant = sequence;
    const agent = event.agent_name;
    let backfill: [string, number[]][] = [];
    if (agent !== undefined) {
      const list = this.agentMessages.get(agent) ?? [];
      list.push(sequence);
      this.agentMessages.set(agent, list);
      if (!this.namesVisible && this.agentMessages.size > 1) {
        this.namesVisible = true;
        backfill = [...this.agentMessages].map(([name, seqs]) => [name, seqs.filter((s) => s !== sequence)]);
      }
    }
    const row = {
      sequence,
      role: event.role,
      // A webhook's response or a model's output spoken back may hold text no store keeps.
      content: storableText(event.content),
      agent_name: this.namesVisible && agent !== undefined ? agent : null,
      spoken_at: toDbTime(event.at),
      latency_ms: event.latency_ms === undefined ? null : Math.round(event.latency_ms),
      latency: event.latency === undefined ? null : JSON.stringify(event.latency),
      interrupted: 0,
    };
    this.queue.push(async () => {
      const conversationId = this.conversationId!;
      const { db } = this.options;
      await repo.insertMessage(db, { id: this.newId(), conversation_id: conversationId, ...row });
      for (const [name, seqs] of backfill) {
        if (seqs.length === 0) continue;
        await repo.nameAgent(db, conversationId, name, seqs);
      }
      await repo.touchConversation(db, conversationId, row.spoken_at, this.takeSteps());
    });
  }

  private async ensureConversation(now: number): Promise<void> {
    const { db, sessionId } = this.options;
    const at = toDbTime(now);
    this.conversationId = await repo.ensureConversation(db, {
      id: this.newId(),
      workspace_id: this.options.workspaceId,
      project_id: this.options.projectId,
      session_id: sessionId,
      created_at: at,
      updated_at: at,
    });
  }
}
