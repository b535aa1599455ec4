// Text templates: `{{name}}`, `{{ name }}` and dotted paths `{{customer.tier}}`, `{{items.0}}`.
// Rendering is a lookup, never code: a placeholder is a path of identifiers (or array indices) and
// nothing else; `{{ anything else }}` is left in the text exactly as written. Missing values render
// as the empty string. The grammar is documented in docs/workflow-nodes.md.

import { lookupPath, valueToText } from './paths.js';

/** Matches one `{{ … }}` with no braces inside; the inner text is group 1. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|0|[1-9][0-9]*))*$/;

export interface TemplatePlaceholder {
  /** The whole `{{ … }}` as written. */
  raw: string;
  /** Offset of `{{` in the template. */
  index: number;
  /** The path segments, or null when the inner text is not a variable path (left as written). */
  path: string[] | null;
}

/** Every `{{ … }}` in the template, in order, with its parsed path when it is one. */
export function parseTemplate(template: string): TemplatePlaceholder[] {
  const out: TemplatePlaceholder[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const inner = match[1].trim();
    out.push({ raw: match[0], index: match.index, path: PATH.test(inner) ? inner.split('.') : null });
  }
  return out;
}

export function renderTemplate(template: string, variables: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (raw: string, inner: string) => {
    const path = inner.trim();
    if (!PATH.test(path)) return raw;
    return valueToText(lookupPath(variables, path.split('.')));
  });
}

/** Root variable names a template reads (`{{customer.tier}}` reads `customer`), deduplicated. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const placeholder of parseTemplate(template)) {
    if (placeholder.path) names.add(placeholder.path[0]);
  }
  return [...names];
}

/** True when the string contains at least one variable placeholder. */
export function isTemplated(template: string): boolean {
  return parseTemplate(template).some((p) => p.path !== null);
}
