// `webhook`: one HTTP request to a customer system mid-call.
//   method          GET | POST (default) | PUT | PATCH | DELETE
//   url             template
//   headers         {name: template}
//   body            template string (sent as is), or an object whose string leaves are rendered and
//                   which is sent as JSON; Content-Type application/json unless a header sets it
//   timeout_seconds default 10
//   auth            {"type": "none"} | {"type": "bearer", "secret_variable": "secret_token"} |
//                   {"type": "hmac", "secret_variable": "secret_signing_key"}: the body is signed by
//                   src/events/signer.ts like platform webhooks (X-Service-Timestamp and
//                   X-Service-Signature headers). `token` (template) may replace secret_variable.
//   response_mapping {"variable": "$.path.to.field"} read from a JSON response
//   save_response_to optional variable that gets the whole parsed response body
// Leaves by `success` on a 2xx, `error` otherwise (status, timeout, network), with
// `webhook_status` (HTTP status or 0) and `webhook_error` set on error.
import { signPayload } from '../../events/signer.js';
import type { NodeDefinition } from '../node-types.js';
import { optRecord, optString, reqString, secondsToMs } from './config.js';
import { renderBody, resolveSecret, selectJsonPath } from './webhook-helpers.js';

export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10;

export const webhookNode: NodeDefinition = {
  type: 'webhook',
  run: async (ctx, config, signal) => {
    const method = (optString(config, 'method') ?? 'POST').toUpperCase();
    const url = ctx.render(reqString(config, 'url'));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(optRecord(config, 'headers') ?? {})) {
      headers[name] = typeof value === 'string' ? ctx.render(value) : String(value);
    }
    const body = method === 'GET' || method === 'HEAD' ? undefined : renderBody(ctx, config.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
    const auth = optRecord(config, 'auth') ?? { type: 'none' };
    if (auth.type === 'bearer') {
      headers.Authorization = `Bearer ${resolveSecret(ctx, auth)}`;
    } else if (auth.type === 'hmac') {
      const timestamp = Math.floor(ctx.clock.now() / 1000);
      headers['X-Service-Timestamp'] = String(timestamp);
      headers['X-Service-Signature'] = signPayload(resolveSecret(ctx, auth), timestamp, body ?? '');
    }

    const controller = new AbortController();
    const onAbort = (): void => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = secondsToMs(config, 'timeout_seconds', DEFAULT_WEBHOOK_TIMEOUT_SECONDS);
    const timer = ctx.clock.setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    let status = 0;
    let text: string;
    try {
      const res = await ctx.fetch(url, {
        method,
        headers,
        signal: controller.signal,
        ...(body !== undefined ? { body } : {}),
      });
      status = res.status;
      text = await res.text();
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const message = controller.signal.aborted ? 'timeout' : (err as Error).message;
      return { handle: 'error', outputs: { webhook_status: 0, webhook_error: message } };
    } finally {
      ctx.clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    if (status < 200 || status > 299) {
      return { handle: 'error', outputs: { webhook_status: status, webhook_error: `HTTP ${status}` } };
    }
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // Not JSON: mappings find nothing, save_response_to gets the text.
    }
    const outputs: Record<string, unknown> = { webhook_status: status };
    for (const [name, path] of Object.entries(optRecord(config, 'response_mapping') ?? {})) {
      if (typeof path === 'string') outputs[name] = selectJsonPath(parsed, path) ?? null;
    }
    const saveTo = optString(config, 'save_response_to');
    if (saveTo) outputs[saveTo] = parsed;
    return { handle: 'success', outputs };
  },
};
