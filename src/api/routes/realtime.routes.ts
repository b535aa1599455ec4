// GET /sessions/{id}/realtime?token=<join_token>: the session's WebSocket. The join token (not an
// API key) authenticates it; the upgrade is refused with 401/404 before any frame flows. Frames
// follow docs/realtime-protocol.md (user_text, dtmf, end, webrtc_offer, ice_candidate ↔
// assistant_text, node, status, webrtc_answer, ended).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RealtimeConnection } from '../../engine/realtime-protocol.js';
import type { ServiceDeps } from '../../modules/context.js';
import { verifyJoinToken } from '../../modules/sessions/join-token.js';
import { SessionJoinError, type SessionHost } from '../../modules/sessions/session-host.js';
import { bearerToken } from '../plugins/auth.js';
import { sendError } from '../plugins/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    joinWorkspaceId?: string;
  }
}

export async function realtimeRoutes(
  app: FastifyInstance,
  host: SessionHost,
  deps: ServiceDeps,
): Promise<void> {
  app.get(
    '/sessions/:id/realtime',
    {
      websocket: true,
      schema: {
        tags: ['sessions'],
        summary: 'WebSocket of a session, authenticated by its join token',
        params: Type.Object({ id: Type.String() }),
        querystring: Type.Object({
          token: Type.Optional(Type.String()),
          media: Type.Optional(
            Type.Literal('webrtc', {
              description: 'The client will send a webrtc_offer: the session starts once its audio is up',
            }),
          ),
        }),
      },
      preValidation: async (request, reply) => {
        const { id } = request.params as { id: string };
        const token = (request.query as { token?: string }).token ?? bearerToken(request);
        const claims = token ? await verifyJoinToken(deps.keys.joinToken, token, deps.clock.now()) : null;
        if (!claims || claims.sessionId !== id) {
          return sendError(reply, 401, 'A valid join token for this session is required.');
        }
        request.joinWorkspaceId = claims.workspaceId;
      },
    },
    async (socket, request) => {
      const { id } = request.params as { id: string };
      let connection: RealtimeConnection | null = null;
      const pending: string[] = [];
      socket.on('message', (data: Buffer) => {
        const text = data.toString('utf8');
        if (connection) connection.receive(text);
        else pending.push(text);
      });
      socket.on('close', () => connection?.close());
      try {
        const session = await host.join(request.joinWorkspaceId!, id);
        connection = new RealtimeConnection(session, (frame) => socket.send(frame), {
          initialFrames: pending.splice(0),
          awaitMedia: (request.query as { media?: string }).media === 'webrtc',
          // After the `ended` frame the socket has nothing more to carry; the frame waits until the
          // end is stored, so the page's "Call ended" and GET /sessions/{id} agree.
          endStored: () => host.endStored(session),
          onEnded: () => socket.close(1000, 'session ended'),
        });
      } catch (err) {
        const code = err instanceof SessionJoinError ? err.code : 'internal_error';
        socket.send(JSON.stringify({ type: 'error', code, message: (err as Error).message }));
        socket.close(code === 'internal_error' ? 1011 : 4404, code);
        if (code === 'internal_error') request.log.error({ err }, 'realtime join failed');
      }
    },
  );
}
