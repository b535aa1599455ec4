// Pieces of the webhook node that are pure: body rendering, secrets for auth, and the small JSON
// path dialect of response_mapping (`$`, `$.a.b`, `$.items[0].sku`, `$.items.0.sku`).
import { NodeError, type NodeContext } from '../node-types.js';
import { lookupPath } from '../workflow-deps.js';

function renderLeaves(ctx: NodeContext, value: unknown): unknown {
  if (typeof value === 'string') return ctx.render(value);
  if (Array.isArray(value)) return value.map((v) => renderLeaves(ctx, v));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = renderLeaves(ctx, v);
    return out;
  }
  return value;
}

export function renderBody(ctx: NodeContext, body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return ctx.render(body);
  return JSON.stringify(renderLeaves(ctx, body));
}

/** The auth secret: the variable named by `secret_variable`, else the `token` template. */
export function resolveSecret(ctx: NodeContext, auth: Record<string, unknown>): string {
  if (typeof auth.secret_variable === 'string') {
    const value = ctx.variables.get(auth.secret_variable);
    if (typeof value === 'string' && value !== '') return value;
    throw new NodeError('missing_secret', `Variable "${auth.secret_variable}" holds no secret.`);
  }
  if (typeof auth.token === 'string') return ctx.render(auth.token);
  throw new NodeError('invalid_config', 'auth needs secret_variable (or token).');
}

export function selectJsonPath(root: unknown, path: string): unknown {
  const p = path.trim();
  if (p === '$') return root;
  if (!p.startsWith('$.') && !p.startsWith('$[')) return undefined;
  const segments = p
    .slice(1)
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
  return lookupPath(root, segments);
}
