import { describe, expect, it } from 'vitest';
import { checkDestinationTemplate, parseDestination } from './destinations.js';

describe('parseDestination', () => {
  it('parses the two forms', () => {
    expect(parseDestination('tel:+14155550100')).toEqual({ kind: 'tel', number: '+14155550100' });
    expect(parseDestination(' sip:desk@pbx.example.com ')).toEqual({
      kind: 'sip',
      uri: 'sip:desk@pbx.example.com',
      user: 'desk',
      host: 'pbx.example.com',
    });
    expect(parseDestination('sip:100@10.0.0.5:5080;transport=tcp')).toMatchObject({
      user: '100',
      host: '10.0.0.5',
    });
  });

  it.each([
    '+14155550100',
    'tel:14155550100',
    'tel:+0123456789',
    'tel:+1',
    'sip:pbx.example.com',
    'sip:@host',
    'mailto:a@b',
    '',
  ])('refuses %j', (value) => {
    expect(parseDestination(value)).toBe(null);
  });
});

describe('checkDestinationTemplate', () => {
  it.each([
    ['tel:+14155550100', 'valid'],
    ['tel:{{number}}', 'valid'],
    ['tel:+1{{local}}', 'valid'],
    ['sip:{{user}}@pbx.example.com', 'valid'],
    ['sip:{{ext}}', 'valid'],
    ['sip:desk@{{host}}', 'valid'],
    ['tel:{{ a.b }}', 'valid'],
    ['{{destination}}', 'undecidable'],
    ['  {{scheme}}:{{rest}}', 'undecidable'],
    ['+14155550100', 'invalid'],
    ['tel:555', 'invalid'],
    ['phone:{{n}}', 'invalid'],
    ['tel:{{n}} ext', 'invalid'],
    ['sip:a b@{{host}}', 'invalid'],
  ])('%j is %s', (template, verdict) => {
    expect(checkDestinationTemplate(template)).toBe(verdict);
  });
});
