// GET /workflow-schema: the graph envelope and every node's config as JSON Schema (schema_version 1).
// Public: it describes the product, not a workspace's data.
import type { FastifyInstance } from 'fastify';
import { workflowGraphJsonSchema } from '../../workflow/graph-schema.js';

export async function workflowSchemaRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/workflow-schema',
    { schema: { tags: ['workflows'], summary: 'JSON Schema of workflow graphs (schema_version 1)' } },
    async (_req, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      return workflowGraphJsonSchema;
    },
  );
}
