// Workflows: a mutable draft plus immutable published versions. Publishing validates first and
// freezes the graph as version N+1; rollback re-publishes an older version's graph as a new version.
import type { PageParams } from '../../shared/paging.js';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { WorkflowTable } from '../../store/schema.js';
import { SCHEMA_VERSION } from '../../workflow/graph.types.js';
import { validateGraph, type ValidationResult } from '../../workflow/validate.js';
import type { Actor, ServiceDeps } from '../context.js';
import { workflowAttachedNumbers } from '../phone-numbers/phone-numbers.repo.js';
import { projectsRepo } from '../projects/projects.repo.js';
import { versionGraphs } from './version-graphs.js';
import { workflowsRepo } from './workflows.repo.js';
import type { CreateWorkflow, UpdateWorkflow, VersionItem, Workflow } from './workflows.schema.js';

const EMPTY_GRAPH = { nodes: [], edges: [] };

export function toWorkflow(row: WorkflowTable): Workflow {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    graph: parseJson(row.graph, EMPTY_GRAPH),
    published_version: row.published_version,
    published_at: apiTime(row.published_at),
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

/** 422 with the validator's findings: keyed `<node_id>.<field>` (or `graph`), plus the findings. */
export class PublishRejectedError extends AppError {
  constructor(
    readonly result: ValidationResult,
    action = 'published',
  ) {
    const errors: Record<string, string[]> = {};
    for (const f of result.errors) {
      const key = [f.node_id, f.field].filter(Boolean).join('.') || 'graph';
      (errors[key] ??= []).push(f.message);
    }
    super(422, `The workflow has ${result.errors.length} validation error(s); it was not ${action}.`, errors);
  }
}

export class WorkflowsService {
  constructor(private readonly deps: ServiceDeps) {}

  async list(actor: Actor, filter: { project_id?: string }, page: PageParams) {
    const { rows, total } = await workflowsRepo.list(this.deps.db, actor.workspaceId, filter, page);
    return { items: rows.map(toWorkflow), total };
  }

  async require(ex: Executor, actor: Actor, id: string): Promise<WorkflowTable> {
    const row = await workflowsRepo.find(ex, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Workflow');
    return row;
  }

  async get(actor: Actor, id: string): Promise<Workflow> {
    return toWorkflow(await this.require(this.deps.db, actor, id));
  }

  async create(actor: Actor, input: CreateWorkflow): Promise<Workflow> {
    return inTransaction(this.deps.db, async (trx) => {
      if (!(await projectsRepo.find(trx, actor.workspaceId, input.project_id))) {
        throw ValidationError.field('project_id', 'does not name a project of this workspace');
      }
      const now = toDbTime(this.deps.clock.now());
      const row: WorkflowTable = {
        id: this.deps.newId(),
        workspace_id: actor.workspaceId,
        project_id: input.project_id,
        name: input.name,
        graph: JSON.stringify(input.graph ?? EMPTY_GRAPH),
        published_version: null,
        published_at: null,
        created_at: now,
        updated_at: now,
      };
      await workflowsRepo.insert(trx, row);
      return toWorkflow(row);
    });
  }

  async update(actor: Actor, id: string, input: UpdateWorkflow): Promise<Workflow> {
    return inTransaction(this.deps.db, async (trx) => {
      const row = await this.require(trx, actor, id);
      const next: WorkflowTable = {
        ...row,
        name: input.name ?? row.name,
        graph: input.graph !== undefined ? JSON.stringify(input.graph) : row.graph,
        updated_at: toDbTime(this.deps.clock.now()),
      };
      await workflowsRepo.updateDraft(trx, actor.workspaceId, id, {
        name: next.name,
        graph: next.graph,
        updated_at: next.updated_at,
      });
      return toWorkflow(next);
    });
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      await this.require(trx, actor, id);
      const numbers = await workflowAttachedNumbers(trx, actor.workspaceId, id);
      if (numbers.length) {
        throw new ConflictError(
          `The workflow is attached to phone number ${numbers.join(', ')} by a dispatch rule; remove the rule first.`,
          { phone_numbers: numbers },
        );
      }
      await workflowsRepo.delete(trx, actor.workspaceId, id);
    });
    // After the commit, so no reader can put the deleted versions back in between.
    versionGraphs.forget(id);
  }

  async validate(actor: Actor, id: string): Promise<ValidationResult> {
    const row = await this.require(this.deps.db, actor, id);
    return this.check(this.deps.db, actor, row.project_id, parseJson(row.graph, EMPTY_GRAPH));
  }

  private async check(
    ex: Executor,
    actor: Actor,
    projectId: string,
    graph: unknown,
  ): Promise<ValidationResult> {
    const agentIds = await workflowsRepo.agentIdsOfProject(ex, actor.workspaceId, projectId);
    return validateGraph(graph, { agentIds });
  }

  /** Publishes the draft, or with `version` re-publishes that version's graph (rollback). */
  async publish(actor: Actor, id: string, version?: number) {
    return inTransaction(this.deps.db, async (trx) => {
      const row = await this.require(trx, actor, id);
      let graphText = row.graph;
      if (version !== undefined) {
        const old = await workflowsRepo.findVersion(trx, id, version);
        if (!old) throw ValidationError.field('version', `version ${version} does not exist`);
        graphText = old.graph;
      }
      const result = await this.check(trx, actor, row.project_id, parseJson(graphText, EMPTY_GRAPH));
      if (!result.valid) throw new PublishRejectedError(result);
      const next = (await workflowsRepo.maxVersion(trx, id)) + 1;
      const now = toDbTime(this.deps.clock.now());
      await workflowsRepo.insertVersion(trx, {
        workflow_id: id,
        version: next,
        workspace_id: actor.workspaceId,
        graph: graphText,
        schema_version: SCHEMA_VERSION,
        published_at: now,
        published_by: `api_key:${actor.keyId}`,
      });
      return { id, name: row.name, published_version: next, published_at: apiTime(now) };
    });
  }

  async versions(actor: Actor, id: string, page: PageParams) {
    await this.require(this.deps.db, actor, id);
    const { rows, total } = await workflowsRepo.listVersions(this.deps.db, id, page);
    const items: VersionItem[] = rows.map((r) => ({ ...r, published_at: apiTime(r.published_at) }));
    return { items, total };
  }

  async version(actor: Actor, id: string, version: number) {
    await this.require(this.deps.db, actor, id);
    const v = await workflowsRepo.findVersion(this.deps.db, id, version);
    if (!v) throw new NotFoundError('Workflow version');
    return {
      workflow_id: id,
      version: v.version,
      published_at: apiTime(v.published_at),
      published_by: v.published_by,
      schema_version: v.schema_version,
      graph: parseJson(v.graph, EMPTY_GRAPH),
    };
  }
}
