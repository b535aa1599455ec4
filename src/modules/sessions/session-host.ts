// Runs sessions in this process: when a client joins a minted session (realtime socket, `chat`),
// the host loads the frozen workflow version, starts a live session on a web channel (text until
// the browser sends a WebRTC offer, then voice; a text channel when no WebRTC is wired) — a call's
// phone session runs the same way on the phone channel the call host gives it: run() — records its
// transcript and usage, and when it ends writes `ended`, a web session's speech usage, and
// session.ended and workflow.completed / workflow.failed to the outbox in one transaction. A web
// session whose peer connection fails or closes is ended here (media_failed, client_disconnected).
// A web session's `dial` legs go through the leg dialler the SIP node of this process installs
// (setLegDialler); a process without one fails them with `sip_unavailable`.
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import type { Channel } from '../../channels/channel.js';
import { TextChannel } from '../../channels/text-channel.js';
import { WebChannel, type WebChannelUsage } from '../../channels/web-channel.js';
import type { IceServer, WebDialRequest, WebDialResult, WebPeerFactory } from '../../channels/web-media.js';
import type { AgentRecord, FetchLike } from '../../engine/node-types.js';
import { recordSession } from '../../engine/session-recording.js';
import { SessionRegistry, type LiveSession, type SessionSummary } from '../../engine/session-runtime.js';
import type { WorkflowGraph } from '../../engine/workflow-deps.js';
import { emitEvent } from '../../events/outbox.js';
import { isoSeconds } from '../../shared/clock.js';
import type { SessionEndReason } from '../../shared/session-end-reasons.js';
import type { LlmRegistry } from '../../providers/llm/registry.js';
import type { SttProvider } from '../../providers/stt/stt.types.js';
import type { TtsProvider } from '../../providers/tts/tts.types.js';

import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { SessionTable } from '../../store/schema.js';
import { findAgent, toAgentRecord } from '../agents/agents.service.js';
import type { ServiceDeps } from '../context.js';
import { recordUsage } from '../usage/usage.service.js';
import { versionGraphs } from '../workflows/version-graphs.js';
import { workflowsRepo } from '../workflows/workflows.repo.js';
import { activateSession, endSession } from './session-lifecycle.js';
import type { LiveSessionControl } from './sessions.service.js';
import { sessionsRepo } from './sessions.repo.js';

export class SessionJoinError extends Error {
  constructor(
    readonly code: 'not_found' | 'session_ended',
    message: string,
  ) {
    super(message);
  }
}

export interface RunOptions {
  /** The version's graph, when the caller loaded it already (a call's admission did). */
  graph?: WorkflowGraph;
  /** Called once the session's ending and its events are stored. */
  onFinished?: (summary: SessionSummary) => void;
}

/** What web sessions need to carry a browser's voice (WebRTC); without it they are text only. */
export interface WebVoiceOptions {
  peers: WebPeerFactory;
  tts: TtsProvider;
  stt: SttProvider | null;
  /** The default TTS voice, until an agent node passes its own. */
  voice: string;
  /** The browser's STUN/TURN servers for a session (WEBRTC_ICE_SERVERS and minted TURN credentials). */
  iceServers: (sessionId: string) => readonly IceServer[];
}

export interface SessionHostOptions {
  llm: LlmRegistry;
  /** undici dispatcher with the SSRF guard, for webhook nodes and agent tools. */
  dispatcher?: Dispatcher;
  web?: WebVoiceOptions;
}

/** Places a web session's `dial` leg: the session it is dialled from, and the channel's request. */
export type SessionLegDialler = (session: SessionTable, request: WebDialRequest) => Promise<WebDialResult>;

export class SessionHost implements LiveSessionControl {
  readonly registry = new SessionRegistry();
  private readonly fetch: FetchLike;
  /** Endings still being written to the store, so close() can wait for them. */
  private readonly finishing = new Set<Promise<void>>();
  /** Each live session's end being stored (row, usage, events): see endStored(). */
  private readonly stored = new WeakMap<LiveSession, Promise<void>>();
  private legDialler: SessionLegDialler | null = null;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly options: SessionHostOptions,
  ) {
    const dispatcher = options.dispatcher;
    this.fetch = async (url, init) => {
      const res = await undiciFetch(url, {
        ...init,
        redirect: 'manual',
        ...(dispatcher ? { dispatcher } : {}),
      });
      return { status: res.status, headers: res.headers, text: () => res.text() };
    };
  }

  /**
   * The SIP node of this process places web sessions' dial legs from now on; the returned function
   * takes it away again (while it is still the one in place).
   */
  setLegDialler(dialler: SessionLegDialler): () => void {
    this.legDialler = dialler;
    return () => {
      if (this.legDialler === dialler) this.legDialler = null;
    };
  }

  abort(sessionId: string, reason: string): void {
    void this.registry.end(sessionId, reason as never);
  }

  /** The live session for a join, creating it on the first one. */
  async join(workspaceId: string, sessionId: string): Promise<LiveSession> {
    const live = this.registry.get(sessionId);
    if (live) return live;
    const row = await sessionsRepo.findInWorkspace(this.deps.db, workspaceId, sessionId);
    if (!row) throw new SessionJoinError('not_found', 'Session not found.');
    if (row.status === 'ended') throw new SessionJoinError('session_ended', 'The session has ended.');
    return this.start(row);
  }

  private async start(row: SessionTable): Promise<LiveSession> {
    const web = this.options.web;
    if (row.channel === 'web' && web) {
      // A browser may bring a microphone (webrtc_offer); until it does, the channel is text.
      const channel = new WebChannel({
        clock: this.deps.clock,
        peers: web.peers,
        tts: web.tts,
        stt: web.stt,
        voice: web.voice,
        iceServers: () => web.iceServers(row.id),
        logger: this.deps.logger,
        dialler: (request) =>
          this.legDialler
            ? this.legDialler(row, request)
            : Promise.resolve({ status: 'failed', reason: 'sip_unavailable' }),
      });
      const session = await this.run(row, channel);
      channel.onMediaEnded((how) => {
        void session.end(how === 'failed' ? 'media_failed' : 'client_disconnected');
      });
      return session;
    }
    // Only the test channel pretends transfers and dials succeed; a real web user reaching a
    // telephony node gets an honest failure instead: its `failed` handle, or channel_unsupported.
    const channel = new TextChannel({
      clock: this.deps.clock,
      kind: row.channel === 'test' ? 'test' : 'web',
      simulateTelephony: row.channel === 'test',
    });
    return this.run(row, channel);
  }

  /**
   * Runs a session row on a channel the caller built (text for joins, phone for calls): the frozen
   * version (`graph` when the caller has it loaded already), transcript and usage recorded, and the
   * end stored with its events. Returns the live session, still pending: the caller starts it.
   * `onFinished` runs once the ending is stored.
   */
  async run(row: SessionTable, channel: Channel, options: RunOptions = {}): Promise<LiveSession> {
    const { deps } = this;
    let graph = options.graph;
    if (!graph) {
      graph =
        (await versionGraphs.get(row.workflow_id, row.workflow_version, async () => {
          const version = await workflowsRepo.findVersion(deps.db, row.workflow_id, row.workflow_version);
          return version ? parseJson<WorkflowGraph>(version.graph, { nodes: [], edges: [] }) : null;
        })) ?? undefined;
      if (!graph) throw new SessionJoinError('not_found', 'The workflow version of this session is gone.');
    }
    const executionId = deps.newId();
    const session = this.registry.create({
      sessionId: row.id,
      executionId,
      graph,
      channel,
      clock: deps.clock,
      seeds: {
        session: parseJson(row.variables, {}),
        system: {
          session_id: row.id,
          channel: row.channel,
          workflow_id: row.workflow_id,
          workflow_version: row.workflow_version,
          project_id: row.project_id,
          workspace_id: row.workspace_id,
          ...(row.call_id ? { call_id: row.call_id } : {}),
        },
      },
      llm: (id) => this.options.llm.find(id),
      getAgent: (id) => this.agent(row.workspace_id, id),
      fetch: this.fetch,
      maxExecutionMs: deps.config.maxExecutionSeconds * 1000,
      workflowId: row.workflow_id,
      workflowVersion: row.workflow_version,
    });
    const recording = recordSession(session, {
      db: deps.db,
      workspaceId: row.workspace_id,
      projectId: row.project_id,
      now: deps.clock.now(),
      newId: deps.newId,
      onError: (err) => deps.logger.error({ err, session_id: row.id }, 'recording failed'),
    });
    const off = session.subscribe((event) => {
      // A call's phone session is active already (answered in the call's own transaction).
      if (event.type === 'session.status' && event.status === 'active' && row.status === 'pending') {
        void activateSession(deps.db, deps, row.id).catch((err: unknown) =>
          deps.logger.error({ err, session_id: row.id }, 'could not mark the session active'),
        );
      }
    });
    const finished = session.done.then(async (summary) => {
      off();
      await recording.flush().catch(() => undefined);
      recording.detach();
      // A web session's speech is metered here (a call's by the call controller).
      let voice: WebChannelUsage | null = null;
      if (channel instanceof WebChannel) {
        await channel.close().catch(() => undefined);
        voice = channel.usage();
      }
      await this.finish(row, summary, executionId, voice).catch((err: unknown) =>
        deps.logger.error({ err, session_id: row.id }, 'could not record the end of a session'),
      );
      options.onFinished?.(summary);
    });
    this.finishing.add(finished);
    this.stored.set(session, finished);
    void finished.then(() => this.finishing.delete(finished));
    return session;
  }

  private async agent(workspaceId: string, id: string): Promise<AgentRecord | undefined> {
    const a = await findAgent(this.deps.db, workspaceId, id);
    return a ? toAgentRecord(a) : undefined;
  }

  /**
   * The session row ends, with its events, in one transaction. workflow.completed is for an
   * execution that reached `end` or `hangup` (spec 3.3), workflow.failed for one that aborted. A
   * transferred execution sends neither: the spec names no event for it, and session.ended
   * (end_reason `transferred`) with, on a call, call.ended (hangup_reason `transferred`) already
   * say how it ended (docs/webhooks.md).
   */
  private async finish(
    row: SessionTable,
    summary: SessionSummary,
    executionId: string,
    voice: WebChannelUsage | null,
  ): Promise<void> {
    const { deps } = this;
    const ex = summary.execution;
    const emits = ex !== undefined && ex !== null && (ex.status === 'completed' || ex.status === 'failed');
    // A call's session has usually been ended with the call already, and a caller's hangup ends
    // the execution without a workflow event: then there is nothing to write, and no transaction.
    if (!voice && !emits && (await sessionsRepo.find(deps.db, row.id))?.status === 'ended') return;
    await inTransaction(deps.db, async (trx) => {
      if (voice && this.options.web) await this.recordWebChannelUsage(trx, row, voice, summary.endedAt);
      const current = await sessionsRepo.load(trx, row.id);
      // The run may end before its fire-and-forget activation landed: the run's own start time
      // then goes in here, so started_at and duration_seconds are never lost.
      if (current.started_at === null && summary.startedAt !== null && current.status !== 'ended') {
        current.started_at = toDbTime(summary.startedAt);
        await sessionsRepo.setStartedAt(trx, row.id, current.started_at);
      }
      await endSession(trx, deps, current, summary.endReason as SessionEndReason);
      if (!ex || !emits) return;
      const data = {
        execution_id: executionId,
        session_id: row.id,
        call_id: row.call_id,
        workflow_id: row.workflow_id,
        workflow_version: row.workflow_version,
        status: ex.status,
        last_node_id: ex.lastNodeId,
        path: ex.path,
        duration_ms: Math.round(ex.durationMs),
        started_at: summary.startedAt === null ? null : isoSeconds(summary.startedAt),
        ended_at: isoSeconds(summary.endedAt),
        variables: ex.variables,
        // Caller-owned metadata is echoed in every webhook of its session (docs/webhooks.md).
        metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
        ...(ex.error ? { error: ex.error } : {}),
      };
      await emitEvent(
        trx,
        {
          workspaceId: row.workspace_id,
          projectId: row.project_id,
          type: ex.status === 'failed' ? 'workflow.failed' : 'workflow.completed',
          data,
          now: summary.endedAt,
        },
        deps.newId,
      );
    });
  }

  private async recordWebChannelUsage(
    trx: Executor,
    row: SessionTable,
    voice: WebChannelUsage,
    at: number,
  ): Promise<void> {
    const { tts, stt } = this.options.web!;
    const base = { workspaceId: row.workspace_id, projectId: row.project_id, at };
    await recordUsage(trx, {
      ...base,
      metric: 'tts_characters',
      provider: tts.id,
      quantity: voice.ttsCharacters,
    });
    await recordUsage(trx, {
      ...base,
      metric: 'stt_seconds',
      provider: stt?.id ?? null,
      quantity: Math.ceil(voice.sttSeconds),
    });
  }

  /** Resolves once the session's end is stored, so the `ended` frame never runs ahead of it. */
  endStored(session: LiveSession): Promise<void> {
    return this.stored.get(session) ?? Promise.resolve();
  }

  /** Shutdown: ends every live session here and waits until their endings are stored. */
  async close(): Promise<void> {
    await this.registry.endAll('client_disconnected');
    await Promise.all([...this.finishing]);
  }
}
