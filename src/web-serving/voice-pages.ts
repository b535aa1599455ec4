// Serves browser voice (web-voice/, built into web-voice/dist by `npm install` / `npm run build`):
//   GET /join                 the call page; the join token rides in the fragment (#token=…)
//   GET /web-voice/<file>     its script and style sheet, and switchboard-web.js (the ES module)
//   GET /widget.js            the embeddable call button, loadable from any site
// The page gets a strict Content-Security-Policy (scripts, styles and sockets of this origin only,
// nothing inline, never framed) and may use the microphone; the widget and the module are
// cross-origin resources by design, so they carry CORS and CORP headers that allow any site.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentSecurityPolicy } from './dashboard.js';

const FILES: Record<string, string> = {
  'join.js': 'text/javascript; charset=utf-8',
  'join.css': 'text/css; charset=utf-8',
  'switchboard-web.js': 'text/javascript; charset=utf-8',
};
/** Not hashed, so cached briefly: a new release reaches pages within minutes. */
const SHORT = 'public, max-age=300';

/** web-voice/dist of this checkout, found by walking up from this file to the package root. */
export function defaultVoicePagesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'web-voice'))) {
      return path.join(dir, 'web-voice', 'dist');
    }
    dir = path.dirname(dir);
  }
  return path.resolve('web-voice', 'dist');
}

export interface VoicePagesOptions {
  dir: string;
  publicBaseUrl: string;
}

export async function registerVoicePages(app: FastifyInstance, options: VoicePagesOptions): Promise<void> {
  const root = path.resolve(options.dir);
  const csp = contentSecurityPolicy(options.publicBaseUrl);

  const read = async (name: string): Promise<Buffer | null> => {
    try {
      return await fs.promises.readFile(path.join(root, name));
    } catch {
      return null;
    }
  };
  const notBuilt = (reply: FastifyReply) =>
    reply
      .code(503)
      .header('Cache-Control', 'no-cache')
      .type('text/plain; charset=utf-8')
      .send('Browser voice is not built: run `npm run build` (or `npm install`).');
  const crossOrigin = (reply: FastifyReply) =>
    reply
      .header('Access-Control-Allow-Origin', '*')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('X-Content-Type-Options', 'nosniff');

  app.get('/join', { schema: { hide: true } }, async (_request, reply) => {
    const body = await read('join.html');
    if (!body) return notBuilt(reply);
    return reply
      .header('Content-Security-Policy', csp)
      .header('Permissions-Policy', 'microphone=(self), camera=(), geolocation=()')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Frame-Options', 'DENY')
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(body);
  });

  app.get('/widget.js', { schema: { hide: true } }, async (_request, reply) => {
    const body = await read('widget.js');
    if (!body) return notBuilt(reply);
    return crossOrigin(reply)
      .header('Cache-Control', SHORT)
      .type('text/javascript; charset=utf-8')
      .send(body);
  });

  app.get('/web-voice/:file', { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    const type = Object.hasOwn(FILES, file) ? FILES[file] : undefined;
    if (!type) return reply.callNotFound();
    const body = await read(file);
    if (!body) return notBuilt(reply);
    return crossOrigin(reply).header('Cache-Control', SHORT).type(type).send(body);
  });
}
