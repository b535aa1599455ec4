// Rules for projects: a project groups everything else; it can only be deleted once it holds no
// live resources (history — ended calls, sessions, transcripts, usage — stays readable).
import { pageParams, type PageParams } from '../../shared/paging.js';
import { ConflictError, NotFoundError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, toDbTime } from '../../store/database.js';
import type { ProjectTable } from '../../store/schema.js';
import type { Actor, ServiceDeps } from '../context.js';
import { projectsRepo } from './projects.repo.js';
import type { CreateProject, Project, UpdateProject } from './projects.schema.js';

export function toProject(row: ProjectTable): Project {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

export class ProjectsService {
  constructor(private readonly deps: ServiceDeps) {}

  async list(actor: Actor, page: PageParams = pageParams({})) {
    const { rows, total } = await projectsRepo.list(this.deps.db, actor.workspaceId, page);
    return { items: rows.map(toProject), total };
  }

  async get(actor: Actor, id: string): Promise<Project> {
    return toProject(await this.require(actor, id));
  }

  /** The project row, or 404 (also for projects of other workspaces). */
  async require(actor: Actor, id: string): Promise<ProjectTable> {
    const row = await projectsRepo.find(this.deps.db, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Project');
    return row;
  }

  async create(actor: Actor, input: CreateProject): Promise<Project> {
    const now = toDbTime(this.deps.clock.now());
    const row: ProjectTable = {
      id: this.deps.newId(),
      workspace_id: actor.workspaceId,
      name: input.name,
      description: input.description ?? null,
      created_at: now,
      updated_at: now,
    };
    await projectsRepo.insert(this.deps.db, row);
    return toProject(row);
  }

  async update(actor: Actor, id: string, input: UpdateProject): Promise<Project> {
    return inTransaction(this.deps.db, async (trx) => {
      const row = await projectsRepo.find(trx, actor.workspaceId, id);
      if (!row) throw new NotFoundError('Project');
      const next: ProjectTable = {
        ...row,
        name: input.name ?? row.name,
        description: input.description !== undefined ? input.description : row.description,
        updated_at: toDbTime(this.deps.clock.now()),
      };
      await projectsRepo.update(trx, next);
      return toProject(next);
    });
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      const row = await projectsRepo.find(trx, actor.workspaceId, id);
      if (!row) throw new NotFoundError('Project');
      const live = Object.entries(await projectsRepo.liveResources(trx, actor.workspaceId, id)).filter(
        ([, n]) => n > 0,
      );
      if (live.length) {
        const names = live.map(([kind, n]) => `${n} ${kind}`).join(', ');
        throw new ConflictError(`The project still holds ${names}; delete or end them first.`, {
          project: live.map(([kind, n]) => `${n} ${kind}`),
        });
      }
      await projectsRepo.delete(trx, actor.workspaceId, id);
    });
  }
}
