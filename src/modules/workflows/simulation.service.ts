// Simulation: validates, then runs the graph on the engine's deterministic simulator (fake clock,
// text channel, no network: webhook and LLM answers come from the request's stubs).
import type { SimulatedOutcomes } from '../../channels/text-channel.js';
import { simulate } from '../../engine/simulate.js';
import type { AgentRecord } from '../../engine/node-types.js';
import type { WorkflowGraph } from '../../workflow/graph.types.js';
import { ValidationError } from '../../shared/errors.js';
import { parseJson } from '../../store/database.js';
import { findAgent, toAgentRecord } from '../agents/agents.service.js';
import type { Actor, ServiceDeps } from '../context.js';
import { workflowsRepo } from './workflows.repo.js';
import { PublishRejectedError, type WorkflowsService } from './workflows.service.js';
import type { SimulateBody } from './simulation.schema.js';
import { validateGraph } from '../../workflow/validate.js';

export async function simulateWorkflow(
  deps: ServiceDeps,
  workflows: WorkflowsService,
  actor: Actor,
  id: string,
  body: SimulateBody,
) {
  const row = await workflows.require(deps.db, actor, id);
  let graphText = row.graph;
  let version: number | null = null;
  if (body.version !== undefined) {
    const v = await workflowsRepo.findVersion(deps.db, id, body.version);
    if (!v) throw ValidationError.field('version', `version ${body.version} does not exist`);
    graphText = v.graph;
    version = v.version;
  }
  const graph = parseJson<WorkflowGraph>(graphText, { nodes: [], edges: [] });
  const agentIds = await workflowsRepo.agentIdsOfProject(deps.db, actor.workspaceId, row.project_id);
  const check = validateGraph(graph, { agentIds });
  if (!check.valid) throw new PublishRejectedError(check, 'simulated');

  const getAgent = async (agentId: string): Promise<AgentRecord | undefined> => {
    const a = await findAgent(deps.db, actor.workspaceId, agentId);
    return a ? toAgentRecord(a) : undefined;
  };
  const result = await simulate({
    graph,
    variables: body.variables ?? {},
    inputs: body.inputs ?? [],
    stubs: {
      webhook: body.stubs?.webhook,
      llm: body.stubs?.llm?.map((r) => ({
        text: r.text,
        toolCalls: r.tool_calls?.map((c) => ({ name: c.name, arguments: c.arguments ?? {} })),
      })),
    },
    simulated: body.simulated as SimulatedOutcomes | undefined,
    agents: getAgent,
    system: {
      workflow_id: row.id,
      project_id: row.project_id,
      ...(version !== null ? { workflow_version: version } : {}),
    },
    maxExecutionMs: deps.config.maxExecutionSeconds * 1000,
  });
  return {
    status: result.status,
    path: result.path,
    variables: result.variables,
    messages: result.messages,
    ...(result.error ? { error: result.error } : {}),
  };
}
