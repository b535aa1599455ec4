// fast-check arbitraries drawn from the JSON Schemas of our own OpenAPI document: values that fit
// a schema (so a request reaches the service behind the validator), and values that break it in
// the ways clients do (a wrong type, a missing field, NUL characters, huge numbers). Field names
// give hints where the schema alone would give only noise: an `…_id` field draws from the ids the
// fuzzer created, `from`/`to`/`number` from E.164 numbers.
import fc from 'fast-check';

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
};

export interface Hints {
  /** Ids the fuzzer knows of, own and foreign, by field name (`project_id`, `workflow_id`, …). */
  idsFor(field: string): string[];
}

/** Strings that break stores, parsers or renderers. */
export const nastyString = fc.constantFrom(
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x'.repeat(5000),
  '',
  ' ',
  '../../etc/passwd',
  "'; drop table projects; --",
  '%00',
  '\u202e\u200b',
  '😀'.repeat(50),
  '1e+308',
  'NaN',
  '-0',
  '{{variables.x}}',
  '<script>alert(1)</script>',
);

const nastyNumber = fc.constantFrom(
  0,
  -1,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  0.5,
  2 ** 31,
  2 ** 63,
  -(2 ** 31),
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  nastyNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const e164 = fc.integer({ min: 2_000_000_000, max: 9_999_999_999 }).map((n) => `+1${n}`);

/** A plausible value for a string field, by its name and schema. */
function stringFor(field: string, schema: JsonSchema, hints: Hints): fc.Arbitrary<string> {
  const ids = hints.idsFor(field);
  if (ids.length > 0)
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.uuid() });
  if (/(^|_)(from|to|number|caller)$/.test(field)) return e164;
  if (field === 'url')
    return fc.constantFrom('https://hooks.example.com/in', 'https://203.0.113.9/x', 'http://127.0.0.1/x');
  if (field.endsWith('_uri'))
    return fc.constantFrom('sip:carrier.example.com', 'sip:203.0.113.5:5060', 'nonsense');
  if (field === 'timezone') return fc.constantFrom('Europe/Berlin', 'UTC', 'Mars/Olympus');
  if (field === 'start' || field === 'end') return fc.constantFrom('09:00', '23:59', '24:00', '9');
  if (field === 'from_date' || field === 'to_date')
    return fc.constantFrom('2026-11-01', '2026-02-30', '2026-1-1');
  if (schema.format === 'uuid') return fc.uuid();
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 40, 40);
  return fc.string({ minLength: Math.min(min, max), maxLength: Math.max(min, max) });
}

/** Values meant to pass the schema (field names give the hints). */
export function validValue(schema: JsonSchema, hints: Hints, field = ''): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => validValue(b, hints, field)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(field, schema, hints);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items ?? {}, hints, field), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
      return objectValue(schema, hints);
    default:
      return anyJson;
  }
}

function objectValue(schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  const props = schema.properties ?? {};
  const keys = Object.keys(props);
  if (keys.length === 0) {
    const inner = schema.patternProperties
      ? Object.values(schema.patternProperties)[0]!
      : typeof schema.additionalProperties === 'object'
        ? schema.additionalProperties
        : {};
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), validValue(inner, hints), {
      maxKeys: 4,
    });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const key of keys) record[key] = validValue(props[key]!, hints, key);
  return fc.record(record, { requiredKeys: schema.required ?? [] });
}

/** Values meant to break the schema: each mutation a thing real clients send by mistake. */
export function brokenValue(schema: JsonSchema, hints: Hints): fc.Arbitrary<unknown> {
  const valid = validValue(schema, hints);
  const props = Object.keys(schema.properties ?? {});
  const mutations: Array<fc.Arbitrary<unknown>> = [
    anyJson,
    valid.map((v) => deepReplace(v, isString, 'a\u0000b')),
    valid.map((v) => deepReplace(v, isString, '\udc00')),
    valid.map((v) => deepReplace(v, isNumber, 1e308)),
    fc.constant(deepNest(200)),
  ];
  if (props.length > 0) {
    mutations.push(
      fc
        .tuple(valid, fc.constantFrom(...props), anyJson)
        .map(([v, key, junk]) => ({ ...(v as object), [key]: junk })),
      fc.tuple(valid, fc.constantFrom(...props)).map(([v, key]) => {
        const copy = { ...(v as Record<string, unknown>) };
        delete copy[key];
        return copy;
      }),
      valid.map((v) => ({ ...(v as object), unexpected_field: 1 })),
    );
  }
  return fc.oneof(...mutations);
}

/** `value` with every leaf that `is` picks replaced by `to`, at any depth. */
function deepReplace(value: unknown, is: (leaf: unknown) => boolean, to: unknown): unknown {
  if (is(value)) return to;
  if (Array.isArray(value)) return value.map((v) => deepReplace(v, is, to));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepReplace(v, is, to)]));
  }
  return value;
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isNumber = (v: unknown): boolean => typeof v === 'number';

function deepNest(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = { n: [v] };
  return v;
}
