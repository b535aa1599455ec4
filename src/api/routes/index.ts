// Every /api/v1 route file, registered in one place.
import type { FastifyInstance } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { agentRoutes } from './agents.routes.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { conversationRoutes } from './conversations.routes.js';
import { callRoutes } from './calls.routes.js';
import { phoneNumberRoutes } from './phone-numbers.routes.js';
import { projectRoutes } from './projects.routes.js';
import { sipTrunkRoutes } from './sip-trunks.routes.js';
import { usageRoutes } from './usage.routes.js';
import { planRoutes } from './plan.routes.js';
import { sessionRoutes } from './sessions.routes.js';
import { joinRoutes } from './join.routes.js';
import { workflowSchemaRoutes } from './workflow-schema.routes.js';
import { workflowRoutes } from './workflows.routes.js';
import { webhookEndpointRoutes } from './webhook-endpoints.routes.js';

export async function registerRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  await projectRoutes(app, s, deps);
  await apiKeyRoutes(app, s, deps);
  await conversationRoutes(app, s, deps);
  await usageRoutes(app, s, deps);
  await planRoutes(app, deps);
  await agentRoutes(app, s, deps);
  await workflowRoutes(app, s, deps);
  await workflowSchemaRoutes(app);
  await sessionRoutes(app, s, deps);
  await joinRoutes(app, s, deps);
  await callRoutes(app, s, deps);
  await sipTrunkRoutes(app, s, deps);
  await phoneNumberRoutes(app, s, deps);
  await webhookEndpointRoutes(app, s, deps);
}
