// Config rules of the nodes that reach outside the conversation: webhook (HTTP), dial and the two
// transfers (telephony). Destinations and URLs are templates, so they are judged by what they can
// render to (destinations.ts): impossible is an error, "only known at run time" a warning.

import { E164, checkDestinationTemplate, parseDestination } from './destinations.js';
import type { TemplateVerdict } from './destinations.js';
import { WEBHOOK_METHODS } from './graph-schema.js';
import { fieldPath } from './node-variables.js';
import { isSecretVariable } from './secrets.js';
import { isTemplated } from './templates.js';
import { variableNameMessage } from './validate-fields.js';
import type { ConfigFields } from './validate-fields.js';
import { VARIABLE_NAME } from './validate-shared.js';

const DESTINATION_FORMS = '`tel:<E164>` (e.g. tel:+14155550100) or `sip:user@host`';
/** The engine's JSON path dialect over the parsed response body: `$`, `$.a.b`, `$.items[0].sku`. */
const RESPONSE_PATH = /^\$(\.[^.\s[\]]+|\[[0-9]+\])*$/;

function isHttpUrl(rendered: string): boolean {
  try {
    const url = new URL(rendered);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function report(
  f: ConfigFields,
  field: string,
  verdict: TemplateVerdict,
  invalid: string,
  undecidable: string,
): void {
  if (verdict === 'invalid') f.error(field, invalid);
  else if (verdict === 'undecidable') f.warning(field, undecidable);
}

export function checkWebhook(f: ConfigFields): void {
  const rawMethod = f.config.method;
  const method = typeof rawMethod === 'string' ? rawMethod.toUpperCase() : rawMethod;
  if (method !== undefined && !(WEBHOOK_METHODS as readonly unknown[]).includes(method)) {
    f.error('method', `\`method\` must be one of ${WEBHOOK_METHODS.join(', ')}.`);
  }
  const url = f.string('url', true, 'the URL to call');
  if (url !== undefined) {
    report(
      f,
      'url',
      checkDestinationTemplate(url, isHttpUrl),
      '`url` must be an http or https URL.',
      '`url` is only known at run time; it must render to an http or https URL.',
    );
  }
  const headers = f.record('headers', false) ?? {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string')
      f.error(fieldPath('headers', name), 'A header value must be a string (template).');
  }
  const body = f.config.body;
  if (body !== undefined && body !== null && typeof body !== 'string' && typeof body !== 'object') {
    f.error('body', '`body` must be a template string or a JSON object whose strings are templates.');
  } else if (body !== undefined && body !== null && (method === 'GET' || method === 'DELETE')) {
    f.warning('body', `A ${method} request is sent without a body; \`body\` is ignored.`);
  }
  f.seconds('timeout_seconds');
  checkWebhookAuth(f);
  const mapping = f.record('response_mapping', false) ?? {};
  for (const [name, path] of Object.entries(mapping)) {
    const field = fieldPath('response_mapping', name);
    if (!VARIABLE_NAME.test(name)) f.error(field, variableNameMessage('response_mapping', name));
    else if (typeof path !== 'string' || !RESPONSE_PATH.test(path.trim())) {
      f.error(field, 'A response path is `$` (the whole JSON body) or `$.field.inner`, `$.items[0].sku`.');
    }
  }
  f.variableName('save_response_to', false);
}

/** bearer and hmac take their secret from `secret_variable` (preferred) or the `token` template. */
function checkWebhookAuth(f: ConfigFields): void {
  const auth = f.record('auth', false);
  if (auth === undefined || auth.type === 'none') return;
  if (auth.type !== 'bearer' && auth.type !== 'hmac') {
    f.error('auth.type', "`auth.type` must be 'none', 'bearer' or 'hmac'.");
    return;
  }
  const what = auth.type === 'bearer' ? 'the bearer token' : 'the signing secret';
  if (auth.secret_variable !== undefined) {
    if (typeof auth.secret_variable !== 'string' || !VARIABLE_NAME.test(auth.secret_variable)) {
      f.error('auth.secret_variable', `\`secret_variable\` must name the variable holding ${what}.`);
    } else if (!isSecretVariable(auth.secret_variable)) {
      f.warning(
        'auth.secret_variable',
        `'${auth.secret_variable}' is not marked secret (names starting with secret_ are redacted).`,
      );
    }
    return;
  }
  if (typeof auth.token !== 'string' || auth.token.trim() === '') {
    f.error(
      'auth.secret_variable',
      `${auth.type} auth needs \`secret_variable\`, the variable holding ${what}.`,
    );
  } else if (!isTemplated(auth.token)) {
    f.warning(
      'auth.token',
      'The secret is stored in the graph as plain text; use `secret_variable` instead.',
    );
  }
}

export function checkDial(f: ConfigFields): void {
  const to = f.string('to', true, 'the number or address to call');
  if (to !== undefined) {
    const accept = (rendered: string): boolean =>
      E164.test(rendered.trim()) || parseDestination(rendered) !== null;
    report(
      f,
      'to',
      checkDestinationTemplate(to, accept),
      `\`to\` must be an E.164 number, ${DESTINATION_FORMS}.`,
      `\`to\` is only known at run time; it must render to an E.164 number, ${DESTINATION_FORMS}.`,
    );
  }
  const from = f.string('from', false);
  if (from !== undefined && !isTemplated(from) && !E164.test(from.replace(/^tel:/, ''))) {
    f.error('from', '`from` must be a registered number in E.164 (e.g. +14155550100).');
  }
  f.seconds('ring_timeout_seconds');
  f.variableName('save_call_id_to', false);
  const amd = f.boolean('machine_detection');
  const saveAnsweredBy = f.variableName('save_answered_by_to', false);
  if (saveAnsweredBy !== undefined && amd !== true) {
    f.error('save_answered_by_to', '`save_answered_by_to` needs `machine_detection: true`.');
  }
}

export function checkTransfer(f: ConfigFields): void {
  const destination = f.string('destination', true, `${DESTINATION_FORMS}`);
  if (destination !== undefined) {
    const bare = E164.test(destination.trim());
    report(
      f,
      'destination',
      checkDestinationTemplate(destination),
      bare
        ? `Write the number as tel:${destination.trim()}.`
        : `\`destination\` must be ${DESTINATION_FORMS}.`,
      `\`destination\` is only known at run time; it must render to ${DESTINATION_FORMS}.`,
    );
  }
  if (f.node.type === 'transfer_to_human') {
    f.string('announcement', false);
    f.seconds('ring_timeout_seconds');
    f.boolean('machine_detection');
  }
}
