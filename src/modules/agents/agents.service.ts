// Agents: an LLM persona the workflow's agent nodes run. Changes apply to future calls at once
// (nodes look the agent up when they start). Deletion is refused while a workflow uses it.
import type { PageParams } from '../../shared/paging.js';
import { ConflictError, NotFoundError, ValidationError } from '../../shared/errors.js';
import { apiTime } from '../../shared/time.js';
import { inTransaction, parseJson, toDbTime, type Executor } from '../../store/database.js';
import type { AgentTable } from '../../store/schema.js';
import type { AgentRecord } from '../../engine/node-types.js';
import { referencedAgentIds } from '../../workflow/agent-refs.js';
import type { Actor, ServiceDeps } from '../context.js';
import { projectsRepo } from '../projects/projects.repo.js';
import { agentsRepo } from './agents.repo.js';
import { AGENT_DEFAULTS, type Agent, type CreateAgent, type UpdateAgent } from './agents.schema.js';

export function toAgent(row: AgentTable): Agent {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    system_prompt: row.system_prompt,
    llm_provider: row.llm_provider as Agent['llm_provider'],
    llm_model: row.llm_model,
    temperature: row.temperature,
    stt_provider: row.stt_provider as Agent['stt_provider'],
    stt_language: row.stt_language,
    tts_provider: row.tts_provider as Agent['tts_provider'],
    tts_voice: row.tts_voice,
    greeting: row.greeting,
    tools: parseJson(row.tools, []),
    knowledge_base_ids: parseJson(row.knowledge_base_ids, []),
    mcp_server_ids: parseJson(row.mcp_server_ids, []),
    created_at: apiTime(row.created_at),
    updated_at: apiTime(row.updated_at),
  };
}

/** The agent as the engine's agent node reads it (looked up when the node starts). */
export function toAgentRecord(a: AgentTable): AgentRecord {
  return {
    id: a.id,
    name: a.name,
    system_prompt: a.system_prompt,
    greeting: a.greeting,
    temperature: a.temperature,
    tools: parseJson(a.tools, []),
    llm_provider: a.llm_provider,
    llm_model: a.llm_model,
    tts_voice: a.tts_voice,
    stt_language: a.stt_language,
  };
}

export function findAgent(ex: Executor, workspaceId: string, id: string): Promise<AgentTable | undefined> {
  return agentsRepo.find(ex, workspaceId, id);
}

/** Names of workflows whose draft or latest published graph has an agent node using this agent. */
export async function workflowsUsingAgent(
  ex: Executor,
  workspaceId: string,
  agentId: string,
): Promise<string[]> {
  const flows = await agentsRepo.workflowsMentioning(ex, workspaceId, agentId);
  return flows
    .filter(
      (f) =>
        referencedAgentIds(parseJson(f.draft, {})).includes(agentId) ||
        referencedAgentIds(parseJson(f.published, {})).includes(agentId),
    )
    .map((f) => f.name);
}

export class AgentsService {
  constructor(private readonly deps: ServiceDeps) {}

  async list(actor: Actor, filter: { project_id?: string }, page: PageParams) {
    const { rows, total } = await agentsRepo.list(this.deps.db, actor.workspaceId, filter, page);
    return { items: rows.map(toAgent), total };
  }

  async get(actor: Actor, id: string): Promise<Agent> {
    const row = await findAgent(this.deps.db, actor.workspaceId, id);
    if (!row) throw new NotFoundError('Agent');
    return toAgent(row);
  }

  async create(actor: Actor, input: CreateAgent): Promise<Agent> {
    return inTransaction(this.deps.db, async (trx) => {
      if (!(await projectsRepo.find(trx, actor.workspaceId, input.project_id))) {
        throw ValidationError.field('project_id', 'does not name a project of this workspace');
      }
      const now = toDbTime(this.deps.clock.now());
      const row: AgentTable = {
        id: this.deps.newId(),
        workspace_id: actor.workspaceId,
        project_id: input.project_id,
        name: input.name,
        system_prompt: input.system_prompt,
        llm_provider: input.llm_provider,
        llm_model: input.llm_model,
        temperature: input.temperature ?? AGENT_DEFAULTS.temperature,
        stt_provider: input.stt_provider ?? AGENT_DEFAULTS.stt_provider,
        stt_language: input.stt_language ?? AGENT_DEFAULTS.stt_language,
        tts_provider: input.tts_provider ?? AGENT_DEFAULTS.tts_provider,
        tts_voice: input.tts_voice ?? AGENT_DEFAULTS.tts_voice,
        greeting: input.greeting ?? AGENT_DEFAULTS.greeting,
        tools: JSON.stringify(input.tools ?? []),
        knowledge_base_ids: JSON.stringify(input.knowledge_base_ids ?? []),
        mcp_server_ids: JSON.stringify(input.mcp_server_ids ?? []),
        created_at: now,
        updated_at: now,
      };
      assertUniqueToolNames(input.tools);
      await agentsRepo.insert(trx, row);
      return toAgent(row);
    });
  }

  async update(actor: Actor, id: string, input: UpdateAgent): Promise<Agent> {
    return inTransaction(this.deps.db, async (trx) => {
      const row = await findAgent(trx, actor.workspaceId, id);
      if (!row) throw new NotFoundError('Agent');
      assertUniqueToolNames(input.tools);
      const next: AgentTable = {
        ...row,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.system_prompt !== undefined && { system_prompt: input.system_prompt }),
        ...(input.llm_provider !== undefined && { llm_provider: input.llm_provider }),
        ...(input.llm_model !== undefined && { llm_model: input.llm_model }),
        ...(input.temperature !== undefined && { temperature: input.temperature }),
        ...(input.stt_provider !== undefined && { stt_provider: input.stt_provider }),
        ...(input.stt_language !== undefined && { stt_language: input.stt_language }),
        ...(input.tts_provider !== undefined && { tts_provider: input.tts_provider }),
        ...(input.tts_voice !== undefined && { tts_voice: input.tts_voice }),
        ...(input.greeting !== undefined && { greeting: input.greeting }),
        ...(input.tools !== undefined && { tools: JSON.stringify(input.tools) }),
        ...(input.knowledge_base_ids !== undefined && {
          knowledge_base_ids: JSON.stringify(input.knowledge_base_ids),
        }),
        ...(input.mcp_server_ids !== undefined && { mcp_server_ids: JSON.stringify(input.mcp_server_ids) }),
        updated_at: toDbTime(this.deps.clock.now()),
      };
      const { id: _id, workspace_id: _ws, project_id: _p, created_at: _c, ...changes } = next;
      await agentsRepo.update(trx, actor.workspaceId, id, changes);
      return toAgent(next);
    });
  }

  async delete(actor: Actor, id: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      const row = await findAgent(trx, actor.workspaceId, id);
      if (!row) throw new NotFoundError('Agent');
      const users = await workflowsUsingAgent(trx, actor.workspaceId, id);
      if (users.length) {
        throw new ConflictError(`The agent is used by workflow ${users.map((n) => `"${n}"`).join(', ')}.`, {
          workflows: users,
        });
      }
      await agentsRepo.delete(trx, actor.workspaceId, id);
    });
  }
}

function assertUniqueToolNames(tools: { name: string }[] | undefined): void {
  if (!tools) return;
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (seen.has(t.name)) throw ValidationError.field(`tools.${i}.name`, 'must be unique within the agent');
    seen.add(t.name);
  });
}
