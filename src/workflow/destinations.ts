// Transfer and dial destinations (docs/workflow-nodes.md): `tel:<E164>` or `sip:<user>@<host>` (`sips:` too, as
// the engine accepts it). A rendered destination is parsed by parseDestination; the validator
// decides what it can about a destination template before any variable has a value
// (checkDestinationTemplate).

import { parseTemplate, renderTemplate } from './templates.js';

export type Destination =
  { kind: 'tel'; number: string } | { kind: 'sip'; uri: string; user: string; host: string };

export const E164 = /^\+[1-9][0-9]{6,14}$/;
/** user@host[:port][;params]; the host is a name or an IPv4 address (IPv6 in brackets). */
const SIP_URI =
  /^sips?:([^@\s:;]+)@(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?(;[^\s]*)?$/;

export function parseDestination(value: string): Destination | null {
  const text = value.trim();
  if (text.startsWith('tel:')) {
    const number = text.slice(4);
    return E164.test(number) ? { kind: 'tel', number } : null;
  }
  const sip = SIP_URI.exec(text);
  if (sip !== null) return { kind: 'sip', uri: text, user: sip[1], host: sip[2] };
  return null;
}

export type TemplateVerdict = 'valid' | 'invalid' | 'undecidable';

/**
 * Whether a destination template can render to a valid destination. Placeholders are rendered
 * with sample values of each shape a variable may plausibly hold (a number, a user name, a host);
 * when the text before the first placeholder does not fix the scheme, it is undecidable.
 */
export function checkDestinationTemplate(
  template: string,
  accept: (rendered: string) => boolean = (rendered) => parseDestination(rendered) !== null,
): TemplateVerdict {
  const placeholders = parseTemplate(template).filter((p) => p.path !== null);
  if (placeholders.length === 0) return accept(template) ? 'valid' : 'invalid';
  const prefix = template.slice(0, placeholders[0].index).trim();
  if (!/^[a-z]+:/i.test(prefix) && !prefix.startsWith('+')) return 'undecidable';
  const samples = ['+14155550100', '14155550100', 'agent', 'agent@example.com', 'example.com'];
  for (const sample of samples) {
    const variables = Object.fromEntries(
      placeholders.map((p) => [p.path?.[0] ?? '', sampleFor(p.path, sample)]),
    );
    if (accept(renderTemplate(template, variables))) return 'valid';
  }
  return 'invalid';
}

/** A value that renders as `sample` at the placeholder's path (nested for dotted paths). */
function sampleFor(path: string[] | null, sample: string): unknown {
  let value: unknown = sample;
  for (const segment of [...(path ?? [])].slice(1).reverse()) value = { [segment]: value };
  return value;
}
