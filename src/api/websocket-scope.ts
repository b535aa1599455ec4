// WebSockets only where a route asks for one. @fastify/websocket adds an onRequest and an
// onResponse hook and wraps the handler of every route in its context; registered at the root
// that cost every HTTP request about 10 µs. So it is registered inside the context of the
// websocket routes only, and upgrade requests reach it through a small router on the server:
// a path of a websocket route goes to the plugin (which routes it through Fastify as before),
// any other upgrade request is answered 404 and its socket closed.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';

const NOT_FOUND =
  'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n' +
  'Content-Length: 30\r\n\r\n{"message":"Route not found."}';

/** '/a/:id/b' → /^\/a\/[^/]+\/b\/?$/ (trailing slash ignored, as the router does). */
function pathPattern(url: string): RegExp {
  const parts = url
    .replace(/\/$/, '')
    .split('/')
    .map((p) => (p.startsWith(':') ? '[^/]+' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('/')}/?$`);
}

/**
 * Registers `routes` in a context of their own with the websocket plugin; call once per app, on
 * the instance whose prefix the routes share.
 */
export async function registerWebsocketRoutes(
  parent: FastifyInstance,
  maxPayload: number,
  routes: (scope: FastifyInstance) => Promise<void>,
): Promise<void> {
  const upgrades = new EventEmitter();
  const paths: RegExp[] = [];
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (paths.some((p) => p.test(path))) {
      upgrades.emit('upgrade', req, socket, head);
      return;
    }
    socket.on('error', () => socket.destroy());
    socket.end(NOT_FOUND);
  };
  parent.server.on('upgrade', onUpgrade);
  parent.addHook('onClose', async () => {
    parent.server.removeListener('upgrade', onUpgrade);
  });

  await parent.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      if (route.websocket) paths.push(pathPattern(route.url));
    });
    // `server`: where the plugin listens for upgrades (it only needs .on/.removeListener).
    await scope.register(websocket, {
      options: { maxPayload, server: upgrades as unknown as Server },
    });
    await routes(scope);
  });
}
