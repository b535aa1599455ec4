// A live session: one execution of a workflow version on one channel, with the inputs a client
// sends (text, digits), a way to end it, and its event stream. The registry keeps live sessions by
// id so DELETE /sessions/{id} can force-end one: that aborts the running node through its signal.
//
// Session statuses (sessions.status):
//   pending  created (POST /sessions minted it, or a call is being answered); nothing runs yet
//   active   start() ran: the execution is running
//   ended    final; `session.ended` carries end_reason and duration_seconds
//   pending → active → ended, or pending → ended (never joined, or force-ended before start)
//
// End reasons:
//   completed            the execution reached end or hangup
//   transferred          a transfer handed the caller over
//   failed               the execution failed (node error, maximum duration, step limit, …)
//   force_ended          DELETE /sessions/{id}
//   client_ended         the client asked to end (realtime `end` message, chat quit)
//   client_disconnected  the client's socket went away
//   caller_hangup        the caller hung up (phone)
//   timeout              nobody joined a pending session in time
import type { Channel } from '../channels/channel.js';
import type { Clock } from '../shared/clock.js';
import { EventStream, type EngineListener, type SessionEndReason, type SessionStatus } from './events.js';
import { Execution, type ExecutionOptions, type ExecutionResult } from './interpreter.js';

/** What a client can feed into a session; the text channel has it, the phone channel will not. */
export interface SessionInput {
  pushText(text: string): void;
  pushDtmf(digits: string): void;
}

export interface LiveSessionOptions extends Omit<
  ExecutionOptions,
  'events' | 'channel' | 'clock' | 'executionId'
> {
  sessionId: string;
  channel: Channel & Partial<SessionInput>;
  clock: Clock;
  executionId?: string;
  /** Keep every event in memory (tests, `switchboard chat`). */
  keepHistory?: boolean;
}

export interface SessionSummary {
  sessionId: string;
  status: 'ended';
  endReason: SessionEndReason;
  /** Clock.now() epoch ms; null when the session never became active. */
  startedAt: number | null;
  endedAt: number;
  durationSeconds: number;
  execution: ExecutionResult | null;
}

export class SessionNotActiveError extends Error {
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} is not active.`);
    this.name = 'SessionNotActiveError';
  }
}

const END_REASON_BY_STATUS = {
  completed: 'completed',
  transferred: 'transferred',
  failed: 'failed',
} as const;

export class LiveSession {
  readonly id: string;
  readonly events: EventStream;
  readonly execution: Execution;
  private statusValue: SessionStatus = 'pending';
  private startedAt: number | null = null;
  private summary: SessionSummary | null = null;
  private resolveDone!: (s: SessionSummary) => void;
  /** Resolves once, when the session reaches `ended`. */
  readonly done: Promise<SessionSummary>;

  constructor(private readonly options: LiveSessionOptions) {
    this.id = options.sessionId;
    this.events = new EventStream(() => options.clock.now(), options.keepHistory ?? false);
    this.execution = new Execution({ ...options, events: this.events });
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  get status(): SessionStatus {
    return this.statusValue;
  }

  get channel(): Channel & Partial<SessionInput> {
    return this.options.channel;
  }

  subscribe(listener: EngineListener): () => void {
    return this.events.subscribe(listener);
  }

  /** pending → active: runs the execution; the session ends when it finishes. Idempotent. */
  start(): void {
    if (this.statusValue !== 'pending') return;
    this.statusValue = 'active';
    this.startedAt = this.options.clock.now();
    this.events.emit({ type: 'session.status', status: 'active' });
    void this.execution.run().then((result) => {
      const reason =
        result.status === 'cancelled'
          ? ((result.cancelReason as SessionEndReason | undefined) ?? 'force_ended')
          : END_REASON_BY_STATUS[result.status];
      this.finish(reason, result);
    });
  }

  sendText(text: string): void {
    this.input().pushText(text);
  }

  sendDtmf(digits: string): void {
    this.input().pushDtmf(digits);
  }

  /**
   * Ends the session: a running execution is cancelled (its node's signal aborts) and the session
   * ends with this reason once the execution has unwound. Ending an ended session returns its
   * summary unchanged.
   */
  end(reason: SessionEndReason): Promise<SessionSummary> {
    if (this.summary) return Promise.resolve(this.summary);
    if (this.statusValue === 'active') {
      this.execution.cancel(reason);
    } else {
      this.finish(reason, null);
    }
    return this.done;
  }

  private input(): SessionInput {
    if (this.statusValue === 'ended') throw new SessionNotActiveError(this.id);
    const ch = this.options.channel;
    if (!ch.pushText || !ch.pushDtmf) {
      throw new Error(`The ${ch.kind} channel does not take text or digits from the client.`);
    }
    return ch as SessionInput;
  }

  private finish(reason: SessionEndReason, execution: ExecutionResult | null): void {
    if (this.summary) return;
    const endedAt = this.options.clock.now();
    this.statusValue = 'ended';
    this.summary = {
      sessionId: this.id,
      status: 'ended',
      endReason: reason,
      startedAt: this.startedAt,
      endedAt,
      durationSeconds: this.startedAt === null ? 0 : Math.round((endedAt - this.startedAt) / 1000),
      execution,
    };
    this.events.emit({ type: 'session.status', status: 'ended' });
    this.events.emit({
      type: 'session.ended',
      end_reason: reason,
      duration_seconds: this.summary.durationSeconds,
    });
    this.resolveDone(this.summary);
  }
}

/** Live sessions of this process by id; ended sessions leave it on their own. */
export class SessionRegistry {
  private readonly sessions = new Map<string, LiveSession>();

  /** Creates a pending session and registers it until it ends. */
  create(options: LiveSessionOptions): LiveSession {
    if (this.sessions.has(options.sessionId)) {
      throw new Error(`Session ${options.sessionId} is already live.`);
    }
    const session = new LiveSession(options);
    this.sessions.set(session.id, session);
    void session.done.then(() => this.sessions.delete(session.id));
    return session;
  }

  get(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** DELETE /sessions/{id}: undefined when no such session is live here. */
  end(id: string, reason: SessionEndReason = 'force_ended'): Promise<SessionSummary> | undefined {
    return this.sessions.get(id)?.end(reason);
  }

  /** Shutdown: ends every live session. */
  async endAll(reason: SessionEndReason): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.end(reason)));
  }
}
