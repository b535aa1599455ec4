// Config rules of webhook, dial and the transfers (one node per graph, every handle wired).
import { describe, expect, it } from 'vitest';
import { validateGraph } from './validate.js';
import { singleNodeGraph } from './testing/single-node-graph.js';
import type { GraphNode } from './graph.types.js';

function check(type: GraphNode['type'], config: Record<string, unknown>) {
  const { errors, warnings } = validateGraph(
    singleNodeGraph(type, config, { inputs: ['number', 'host', 'destination', 'base_url', 'secret_token'] }),
    {},
  );
  return { errors, warnings };
}
const at = (field: string, message: string) => ({ node_id: 'n', field, message });
const FORMS = '`tel:<E164>` (e.g. tel:+14155550100) or `sip:user@host`';

describe('transfer destinations', () => {
  it.each([
    'tel:+14155550100',
    'sip:desk@pbx.example.com',
    'tel:{{number}}',
    'sip:{{number}}@pbx.example.com',
    'sip:desk@{{host}}',
  ])('accepts %j', (destination) => {
    expect(check('transfer_call', { destination })).toEqual({ errors: [], warnings: [] });
    expect(check('transfer_to_human', { destination, announcement: 'A caller for you' })).toEqual({
      errors: [],
      warnings: [],
    });
  });

  it('refuses forms that can never be valid', () => {
    expect(check('transfer_call', { destination: 'tel:555' }).errors).toEqual([
      at('destination', `\`destination\` must be ${FORMS}.`),
    ]);
    expect(check('transfer_to_human', { destination: 'phone:{{number}}' }).errors).toEqual([
      at('destination', `\`destination\` must be ${FORMS}.`),
    ]);
    expect(check('transfer_call', { destination: '+14155550100' }).errors).toEqual([
      at('destination', 'Write the number as tel:+14155550100.'),
    ]);
    expect(check('transfer_call', {}).errors).toEqual([
      at('destination', `\`destination\` is required (${FORMS}).`),
    ]);
  });

  it('warns when the template decides the form only at run time', () => {
    expect(check('transfer_to_human', { destination: '{{destination}}' })).toEqual({
      errors: [],
      warnings: [at('destination', `\`destination\` is only known at run time; it must render to ${FORMS}.`)],
    });
  });

  it('checks the warm transfer extras', () => {
    expect(
      check('transfer_to_human', {
        destination: 'tel:+14155550100',
        announcement: 3,
        ring_timeout_seconds: 0,
      }).errors,
    ).toEqual([
      at('announcement', '`announcement` must be a string (announcement).'),
      at('ring_timeout_seconds', '`ring_timeout_seconds` must be a positive number of seconds.'),
    ]);
  });
});

describe('dial', () => {
  it('accepts E.164, tel: and sip: targets', () => {
    for (const to of [
      '+14155550100',
      'tel:+14155550100',
      'sip:bob@example.com',
      '{{number}}'.replace('{{', '+1{{'),
    ]) {
      expect(check('dial', { to, from: '+14155550199', save_call_id_to: 'leg' }), to).toEqual({
        errors: [],
        warnings: [],
      });
    }
  });

  it('checks to, from, ring timeout and save_call_id_to', () => {
    expect(
      check('dial', { to: 'bob', from: '555', ring_timeout_seconds: -1, save_call_id_to: 'a b' }).errors,
    ).toEqual([
      at('to', `\`to\` must be an E.164 number, ${FORMS}.`),
      at('from', '`from` must be a registered number in E.164 (e.g. +14155550100).'),
      at('ring_timeout_seconds', '`ring_timeout_seconds` must be a positive number of seconds.'),
      at(
        'save_call_id_to',
        "'a b' is not a valid variable name for `save_call_id_to`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
    ]);
    expect(check('dial', { to: '{{number}}' }).warnings).toEqual([
      at('to', `\`to\` is only known at run time; it must render to an E.164 number, ${FORMS}.`),
    ]);
  });

  it('checks machine_detection on dial and transfer_to_human, and that save_answered_by_to needs it', () => {
    const to = 'tel:+14155550100';
    expect(check('dial', { to, machine_detection: true, save_answered_by_to: 'who' }).errors).toEqual([]);
    expect(check('dial', { to, machine_detection: 'yes', save_answered_by_to: 'who' }).errors).toEqual([
      at('machine_detection', '`machine_detection` must be true or false.'),
      at('save_answered_by_to', '`save_answered_by_to` needs `machine_detection: true`.'),
    ]);
    expect(check('transfer_to_human', { destination: to, machine_detection: 1 }).errors).toEqual([
      at('machine_detection', '`machine_detection` must be true or false.'),
    ]);
    expect(check('transfer_to_human', { destination: to, machine_detection: true }).errors).toEqual([]);
  });
});

describe('webhook', () => {
  const ok = { url: 'https://crm.example.com/lookup?n={{number}}' };

  it('needs an http(s) url', () => {
    expect(check('webhook', ok)).toEqual({ errors: [], warnings: [] });
    expect(check('webhook', {}).errors).toEqual([at('url', '`url` is required (the URL to call).')]);
    expect(check('webhook', { url: 'ftp://example.com/x' }).errors).toEqual([
      at('url', '`url` must be an http or https URL.'),
    ]);
    expect(check('webhook', { url: 'not a url' }).errors).toEqual([
      at('url', '`url` must be an http or https URL.'),
    ]);
    expect(check('webhook', { url: 'https://{{host}}/x' })).toEqual({ errors: [], warnings: [] });
    expect(check('webhook', { url: '{{base_url}}/lookup' }).warnings).toEqual([
      at('url', '`url` is only known at run time; it must render to an http or https URL.'),
    ]);
  });

  it('checks method, headers, body, timeout and response mapping', () => {
    const result = check('webhook', {
      ...ok,
      method: 'FETCH',
      headers: { 'X-Ok': 'x', 'X-Bad': 5 },
      timeout_seconds: 0,
      response_mapping: {
        tier: '$.customer.tier',
        whole: '$',
        first: '$.items[0].sku',
        bad: 'body.customer.tier',
        '9': '$',
      },
      save_response_to: 'the response',
    });
    expect(result.errors).toEqual([
      at('method', '`method` must be one of GET, POST, PUT, PATCH, DELETE.'),
      at('headers.X-Bad', 'A header value must be a string (template).'),
      at('timeout_seconds', '`timeout_seconds` must be a positive number of seconds.'),
      // Integer-like keys come first in a parsed JSON object.
      at(
        'response_mapping["9"]',
        "'9' is not a valid variable name for `response_mapping`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
      at(
        'response_mapping.bad',
        'A response path is `$` (the whole JSON body) or `$.field.inner`, `$.items[0].sku`.',
      ),
      at(
        'save_response_to',
        "'the response' is not a valid variable name for `save_response_to`: use letters, digits and _, not starting with a digit, at most 64 characters.",
      ),
    ]);
    expect(check('webhook', { ...ok, method: 'post', body: { caller: '{{caller}}' } })).toEqual({
      errors: [],
      warnings: [],
    });
    expect(check('webhook', { ...ok, body: 42 }).errors).toEqual([
      at('body', '`body` must be a template string or a JSON object whose strings are templates.'),
    ]);
    expect(check('webhook', { ...ok, method: 'GET', body: '{}' }).warnings).toEqual([
      at('body', 'A GET request is sent without a body; `body` is ignored.'),
    ]);
  });

  it('checks auth', () => {
    expect(check('webhook', { ...ok, auth: { type: 'bearer', token: '{{secret_token}}' } })).toEqual({
      errors: [],
      warnings: [],
    });
    expect(check('webhook', { ...ok, auth: { type: 'hmac', secret_variable: 'secret_token' } })).toEqual({
      errors: [],
      warnings: [],
    });
    expect(check('webhook', { ...ok, auth: { type: 'none' } })).toEqual({ errors: [], warnings: [] });
    expect(check('webhook', { ...ok, auth: { type: 'bearer', secret_variable: 'secret_token' } })).toEqual({
      errors: [],
      warnings: [],
    });
    expect(check('webhook', { ...ok, auth: { type: 'bearer', token: 'abc123' } }).warnings).toEqual([
      at('auth.token', 'The secret is stored in the graph as plain text; use `secret_variable` instead.'),
    ]);
    expect(check('webhook', { ...ok, auth: { type: 'bearer' } }).errors).toEqual([
      at(
        'auth.secret_variable',
        'bearer auth needs `secret_variable`, the variable holding the bearer token.',
      ),
    ]);
    expect(check('webhook', { ...ok, auth: { type: 'hmac' } }).errors).toEqual([
      at(
        'auth.secret_variable',
        'hmac auth needs `secret_variable`, the variable holding the signing secret.',
      ),
    ]);
    expect(check('webhook', { ...ok, auth: { type: 'hmac', secret_variable: 'bad name' } }).errors).toEqual([
      at('auth.secret_variable', '`secret_variable` must name the variable holding the signing secret.'),
    ]);
    expect(check('webhook', { ...ok, auth: { type: 'basic' } }).errors).toEqual([
      at('auth.type', "`auth.type` must be 'none', 'bearer' or 'hmac'."),
    ]);
    expect(check('webhook', { ...ok, auth: 'bearer' }).errors).toEqual([
      at('auth', '`auth` must be an object.'),
    ]);
  });

  it('warns when the HMAC secret is neither set nor marked secret', () => {
    expect(
      check('webhook', { ...ok, auth: { type: 'hmac', secret_variable: 'signing_key' } }).warnings,
    ).toEqual([
      at(
        'auth.secret_variable',
        "'signing_key' is not marked secret (names starting with secret_ are redacted).",
      ),
      at(
        'auth.secret_variable',
        "Variable 'signing_key' is read here but nothing sets it: no node writes it, it is not a system variable and not listed in `inputs`.",
      ),
    ]);
  });
});
