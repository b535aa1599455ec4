// Serves the dashboard (web/, built by `npm install` into web/dist) at / from the API's own
// server: one origin, so the app needs no CORS and its key never leaves for another host.
//   /assets/*  hashed by Vite: cached for a year, immutable
//   a file at the top of web/dist (favicon.svg): cached an hour
//   any other GET: index.html with no-cache, so the app's routes (/calls/…) load the current build
// /api/*, /healthz and other server routes are never shadowed: a GET under /api/ that no route
// answers still gets the API's 404 envelope. Every file goes out with a strict
// Content-Security-Policy: scripts and styles only from this origin, nothing inline.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=3600';

/** Paths the dashboard never answers: the API's and the server's own. */
const SERVER_PREFIXES = ['/api/', '/healthz'];

/** web/dist of this checkout: found by walking up from this file to the package root. */
export function defaultDashboardDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'web'))) {
      return path.join(dir, 'web', 'dist');
    }
    dir = path.dirname(dir);
  }
  return path.resolve('web', 'dist');
}

export function dashboardBuilt(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'index.html'));
}

/** The policy for the app's pages: its websocket (live transcripts) goes to the API's origin. */
export function contentSecurityPolicy(publicBaseUrl: string): string {
  const origin = new URL(publicBaseUrl);
  const socket = `${origin.protocol === 'https:' ? 'wss:' : 'ws:'}//${origin.host}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${socket}`,
    "media-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface DashboardOptions {
  dir: string;
  publicBaseUrl: string;
}

export async function registerDashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const root = path.resolve(options.dir);
  const csp = contentSecurityPolicy(options.publicBaseUrl);

  const secure = (reply: FastifyReply) =>
    reply
      .header('Content-Security-Policy', csp)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Frame-Options', 'DENY');

  /** A regular file inside web/dist for this URL path, or null (nothing outside root, ever). */
  const fileFor = async (urlPath: string): Promise<string | null> => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return null;
    }
    if (decoded.includes('\0')) return null;
    const file = path.resolve(root, '.' + path.posix.normalize('/' + decoded));
    if (!file.startsWith(root + path.sep)) return null;
    try {
      return (await fs.promises.stat(file)).isFile() ? file : null;
    } catch {
      return null;
    }
  };

  const sendFile = async (reply: FastifyReply, file: string, cacheControl: string) => {
    const body = await fs.promises.readFile(file);
    return secure(reply)
      .header('Cache-Control', cacheControl)
      .type(TYPES[path.extname(file)] ?? 'application/octet-stream')
      .send(body);
  };

  const sendIndex = async (reply: FastifyReply) => {
    const index = path.join(root, 'index.html');
    if (!fs.existsSync(index)) {
      return secure(reply)
        .code(503)
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(
          '<!doctype html><title>Switchboard</title><h1>The dashboard is not built</h1>' +
            '<p>Run <code>npm run build:web</code> (or <code>npm install</code>) and reload.</p>',
        );
    }
    return sendFile(reply, index, 'no-cache');
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const urlPath = request.url.split('?')[0]!;
    if (SERVER_PREFIXES.some((p) => urlPath === p.replace(/\/$/, '') || urlPath.startsWith(p))) {
      return reply.callNotFound();
    }
    if (urlPath.startsWith('/assets/')) {
      const file = await fileFor(urlPath);
      // A missing hashed asset is a 404, never the app's HTML (a stale tab asking for an old chunk).
      if (!file) return reply.callNotFound();
      return sendFile(reply, file, IMMUTABLE);
    }
    const file = path.posix.dirname(urlPath) === '/' ? await fileFor(urlPath) : null;
    if (file && path.basename(file) !== 'index.html') return sendFile(reply, file, SHORT);
    return sendIndex(reply);
  });
}
