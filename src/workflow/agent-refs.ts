// Which agents a graph points at. The API uses it to load the project's agents before validating
// and to refuse deleting an agent that a published workflow still uses; it must therefore cope
// with any JSON a client sends, not only graphs that passed validation.

export function referencedAgentIds(graph: unknown): string[] {
  if (typeof graph !== 'object' || graph === null) return [];
  const nodes = (graph as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return [];
  const ids = new Set<string>();
  for (const node of nodes) {
    if (typeof node !== 'object' || node === null) continue;
    const { type, config } = node as { type?: unknown; config?: unknown };
    if (type !== 'agent' || typeof config !== 'object' || config === null) continue;
    const agentId = (config as { agent_id?: unknown }).agent_id;
    if (typeof agentId === 'string' && agentId !== '') ids.add(agentId);
  }
  return [...ids];
}
