import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseTemplate, renderTemplate, templateVariables, isTemplated } from './templates.js';

describe('renderTemplate', () => {
  const vars = {
    name: 'Ada',
    caller: '+14155550100',
    customer: { tier: 'gold', tags: ['vip', 'new'], address: { city: 'Oslo' } },
    count: 3,
    ok: true,
    nothing: null,
  };

  it('replaces {{name}} and {{ name }} with spaces inside', () => {
    expect(renderTemplate('Hello {{name}}!', vars)).toBe('Hello Ada!');
    expect(renderTemplate('Hello {{ name }} / {{  name\t}}', vars)).toBe('Hello Ada / Ada');
  });

  it('follows dotted paths into objects and arrays', () => {
    expect(renderTemplate('{{customer.tier}} {{customer.address.city}} {{customer.tags.1}}', vars)).toBe(
      'gold Oslo new',
    );
  });

  it('renders missing values, null and out-of-range indices as empty', () => {
    expect(renderTemplate('[{{missing}}][{{customer.nope}}][{{customer.tags.5}}][{{nothing}}]', vars)).toBe(
      '[][][][]',
    );
    expect(renderTemplate('[{{name.length}}][{{customer.tags.length}}]', vars)).toBe('[][]');
  });

  it('renders numbers and booleans as text and structures as JSON', () => {
    expect(renderTemplate('{{count}} {{ok}}', vars)).toBe('3 true');
    expect(renderTemplate('{{customer.tags}}', vars)).toBe('["vip","new"]');
  });

  it('leaves text that is not a variable path as written', () => {
    expect(renderTemplate('{{ 1 + 1 }} {{name()}} {{}} {{a..b}} {name} {{{name}}}', vars)).toBe(
      '{{ 1 + 1 }} {{name()}} {{}} {{a..b}} {name} {Ada}',
    );
  });

  it('never reaches into JavaScript machinery', () => {
    const hostile = [
      '{{constructor}}',
      '{{constructor.name}}',
      '{{__proto__}}',
      '{{__proto__.x}}',
      '{{name.constructor}}',
      '{{customer.constructor.prototype}}',
      '{{toString}}',
      '{{hasOwnProperty}}',
      '{{valueOf}}',
      '{{customer.tags.map}}',
    ];
    for (const template of hostile) expect(renderTemplate(template, vars), template).toBe('');
  });

  it('does not read prototype values even when the variables object inherits them', () => {
    const inherited = Object.create({ secret: 'leak' }) as Record<string, unknown>;
    inherited.own = 'yes';
    expect(renderTemplate('{{own}}{{secret}}', inherited)).toBe('yes');
    const polluted = JSON.parse('{"__proto__": {"x": "p"}, "a": 1}') as Record<string, unknown>;
    expect(renderTemplate('{{__proto__.x}}{{a}}', polluted)).toBe('1');
  });

  it('does not execute anything placed in values', () => {
    expect(renderTemplate('{{v}}', { v: '{{name}} ${process.exit()}' })).toBe('{{name}} ${process.exit()}');
  });

  it('renders any variable-free template unchanged (property)', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const safe = text.replace(/\{\{/g, '{');
        expect(renderTemplate(safe, {})).toBe(safe);
      }),
    );
  });
});

describe('templateVariables', () => {
  it('lists root names once, in order', () => {
    expect(templateVariables('{{ b }} {{a.x}} {{b}} {{a.y}} {{ 2 }}')).toEqual(['b', 'a']);
    expect(templateVariables('plain')).toEqual([]);
  });

  it('parseTemplate keeps non-path placeholders with path null', () => {
    expect(parseTemplate('x {{ a.b }} {{1+1}}')).toEqual([
      { raw: '{{ a.b }}', index: 2, path: ['a', 'b'] },
      { raw: '{{1+1}}', index: 12, path: null },
    ]);
    expect(isTemplated('tel:{{n}}')).toBe(true);
    expect(isTemplated('tel:{{ + }}')).toBe(false);
  });
});
