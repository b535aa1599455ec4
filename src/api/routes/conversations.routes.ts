// /conversations: read-only transcripts, listed with filters and read one at a time with messages.
import type { FastifyInstance } from 'fastify';
import {
  Conversation,
  ConversationListQuery,
  ConversationWithMessages,
} from '../../modules/conversations/conversations.schema.js';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { pageParams, renderPage } from '../../shared/paging.js';
import { actorOf } from '../plugins/auth.js';
import { errorResponses, IdParams, Paginated, Single } from '../../shared/schemas.js';
import { pageRequest, typed } from './route-helpers.js';

export async function conversationRoutes(
  app: FastifyInstance,
  s: Services,
  deps: ServiceDeps,
): Promise<void> {
  const r = typed(app);
  const tags = ['conversations'];

  r.get(
    '/conversations',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        querystring: ConversationListQuery,
        response: { 200: Paginated(Conversation), ...errorResponses(422) },
      },
    },
    async (req) => {
      const page = pageParams(req.query);
      const { items, total } = await s.conversations.list(actorOf(req), req.query, page);
      return renderPage(items, total, page, pageRequest(req, deps));
    },
  );

  r.get(
    '/conversations/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags,
        params: IdParams,
        response: { 200: Single(ConversationWithMessages), ...errorResponses(404) },
      },
    },
    async (req) => ({ data: await s.conversations.get(actorOf(req), req.params.id) }),
  );
}
