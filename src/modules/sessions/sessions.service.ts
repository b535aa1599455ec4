// Web sessions: minted through the API with a join token, joined over the realtime socket, and
// force-ended by DELETE. Phone sessions are made by calls (the call controller).
import type { PageParams } from '../../shared/paging.js';
import { announce, type LivePublisher } from '../../events/live-bus.js';
import { isoSeconds } from '../../shared/clock.js';
import { NotFoundError, UnauthenticatedError, ValidationError } from '../../shared/errors.js';
import { inTransaction, type Executor } from '../../store/database.js';
import type { SessionTable, WorkflowTable } from '../../store/schema.js';
import type { Actor, ServiceDeps } from '../context.js';
import { projectsRepo } from '../projects/projects.repo.js';
import { consumeQuota } from '../usage/quota.service.js';
import { workflowsRepo } from '../workflows/workflows.repo.js';
import { checkJoinToken, mintJoinToken } from './join-token.js';
import { endSession, insertPendingSession, toSession } from './session-lifecycle.js';
import type { CreateSession, Session } from './sessions.schema.js';
import { sessionsRepo } from './sessions.repo.js';

/** What the engine's live-session registry offers the API (abort a running session). */
export interface LiveSessionControl {
  /** Aborts the running execution of a session, if it runs in this process. */
  abort(sessionId: string, reason: string): void;
}

/**
 * Checks that project and workflow belong to the workspace and that the workflow has a published
 * version; the 422s of POST /sessions and POST /calls.
 */
export async function requirePublishedWorkflow(
  ex: Executor,
  workspaceId: string,
  projectId: string,
  workflowId: string,
): Promise<WorkflowTable & { published_version: number }> {
  const errors: Record<string, string[]> = {};
  const project = await projectsRepo.find(ex, workspaceId, projectId);
  if (!project) errors.project_id = ['does not name a project of this workspace'];
  const workflow = await workflowsRepo.find(ex, workspaceId, workflowId);
  if (!workflow || (project && workflow.project_id !== project.id)) {
    errors.workflow_id = ['does not name a workflow of this project'];
  } else if (workflow.published_version === null) {
    errors.workflow_id = ['has no published version; publish the workflow first'];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return workflow as WorkflowTable & { published_version: number };
}

export class SessionsService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly live?: LiveSessionControl,
    /** Tells the other nodes (REDIS_URL); without it only this process's sessions are aborted. */
    private readonly events?: LivePublisher,
  ) {}

  async list(
    actor: Actor,
    filter: { project_id?: string; channel?: string; status?: string },
    page: PageParams,
  ) {
    const { rows, total } = await sessionsRepo.list(this.deps.db, actor.workspaceId, filter, page);
    return { items: rows.map(toSession), total };
  }

  async find(ex: Executor, actor: Actor, id: string): Promise<SessionTable> {
    const row = await sessionsRepo.findInWorkspace(ex, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Session');
    return row;
  }

  async get(actor: Actor, id: string): Promise<Session> {
    return toSession(await this.find(this.deps.db, actor, id));
  }

  /** Mints a web session and its join token (shown only in this response). */
  async create(actor: Actor, input: CreateSession) {
    const { deps } = this;
    const row = await inTransaction(deps.db, async (trx) => {
      const workflow = await requirePublishedWorkflow(
        trx,
        actor.workspaceId,
        input.project_id,
        input.workflow_id,
      );
      await consumeQuota(trx, deps, {
        workspaceId: actor.workspaceId,
        projectId: input.project_id,
        kind: 'sessions',
      });
      return insertPendingSession(trx, deps, {
        workspace_id: actor.workspaceId,
        project_id: input.project_id,
        workflow_id: workflow.id,
        workflow_version: workflow.published_version,
        channel: 'web',
        variables: JSON.stringify(input.variables ?? {}),
        metadata: JSON.stringify(input.metadata ?? {}),
        call_id: null,
      });
    });
    const issuedAt = deps.clock.now();
    const expiresAt = issuedAt + deps.config.joinTokenTtlSeconds * 1000;
    const joinToken = await mintJoinToken(deps.keys.joinToken, {
      sessionId: row.id,
      workspaceId: actor.workspaceId,
      issuedAt,
      expiresAt,
    });
    return {
      ...toSession(row),
      join_token: joinToken,
      join_token_expires_at: isoSeconds(expiresAt),
      realtime_url: this.realtimeUrl(row.id),
      // The token rides in the fragment, which browsers never send: no server log holds it.
      join_url: `${deps.config.publicBaseUrl}/join#token=${joinToken}`,
    };
  }

  /**
   * What a browser holding a join token needs before it asks for the microphone: the session, its
   * status and its socket (GET /join-info). Expired and invalid tokens are told apart, so a page
   * can say which; the session is looked up in the token's own workspace.
   */
  async joinInfo(token: string) {
    const { deps } = this;
    const checked = await checkJoinToken(deps.keys.joinToken, token, deps.clock.now());
    if ('error' in checked) {
      throw new UnauthenticatedError(
        checked.error === 'expired'
          ? 'The join token has expired; ask for a new one.'
          : 'The join token is not valid.',
      );
    }
    const { sessionId, workspaceId, expiresAt } = checked.claims;
    const row = await sessionsRepo.findInWorkspace(deps.db, workspaceId, sessionId);
    if (!row) throw new NotFoundError('Session');
    return {
      session_id: row.id,
      status: row.status,
      end_reason: row.end_reason,
      realtime_url: this.realtimeUrl(row.id),
      join_token_expires_at: isoSeconds(expiresAt),
    };
  }

  private realtimeUrl(sessionId: string): string {
    const wsBase = this.deps.config.publicBaseUrl.replace(/^http/, 'ws');
    return `${wsBase}/api/v1/sessions/${sessionId}/realtime`;
  }

  /**
   * Force-ends a pending or active session; ending an ended one again changes nothing in the
   * store. Its execution runs wherever its socket or call is: here it is aborted directly, and
   * every other node hears session.end. Both also when the record had ended already, so a repeated
   * DELETE reaches an execution that missed the first message (aborting is idempotent).
   */
  async end(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      const row = await this.find(trx, actor, id);
      return endSession(trx, this.deps, row, 'force_ended');
    });
    this.live?.abort(id, 'force_ended');
    await announce(
      this.events,
      { kind: 'session.end', session_id: id, reason: 'force_ended' },
      this.deps.logger,
    );
  }
}
