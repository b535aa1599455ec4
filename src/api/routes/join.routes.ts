// GET /join-info: what a browser holding a join token (the /join page, the widget, any app using
// switchboard/web) needs before it asks for the microphone: the session's status, its realtime
// socket and the ICE servers (WEBRTC_ICE_SERVERS). The token comes in the Authorization header,
// never the URL, so no log holds it. Public (no API key): the token is the credential, and any
// origin may ask (the widget runs on the customer's site), without cookies.
import { iceServersFor } from '../../config/ice-servers.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServiceDeps } from '../../modules/context.js';
import type { Services } from '../../modules/services.js';
import { JoinInfo } from '../../modules/sessions/sessions.schema.js';
import { UnauthenticatedError } from '../../shared/errors.js';
import { bearerToken } from '../plugins/auth.js';
import { errorResponses, Single } from '../../shared/schemas.js';
import { typed } from './route-helpers.js';

function allowAnyOrigin(reply: FastifyReply): FastifyReply {
  return reply
    .header('Access-Control-Allow-Origin', '*')
    .header('Access-Control-Allow-Headers', 'Authorization')
    .header('Access-Control-Allow-Methods', 'GET')
    .header('Access-Control-Max-Age', '600')
    .header('Cache-Control', 'no-store');
}

export async function joinRoutes(app: FastifyInstance, s: Services, deps: ServiceDeps): Promise<void> {
  const r = typed(app);

  r.get(
    '/join-info',
    {
      schema: {
        tags: ['sessions'],
        summary: 'What a browser needs to join a session, authenticated by its join token',
        description:
          'Send the join token as `Authorization: Bearer <join_token>`. 401 says whether the token has expired or is not valid.',
        response: { 200: Single(JoinInfo), ...errorResponses(401, 404) },
      },
      onRequest: async (_req, reply) => {
        allowAnyOrigin(reply);
      },
    },
    async (req) => {
      const token = bearerToken(req);
      if (!token)
        throw new UnauthenticatedError('Send the join token as "Authorization: Bearer <join_token>".');
      const info = await s.sessions.joinInfo(token);
      // The browser's configuration for WebRTC: TURN credentials are minted for this session now.
      const iceServers = iceServersFor(deps.config.webrtc, info.session_id, deps.clock.now());
      return { data: { ...info, ice_servers: iceServers } };
    },
  );

  app.options('/join-info', { schema: { hide: true } }, async (_req, reply) =>
    allowAnyOrigin(reply).code(204).send(),
  );
}
