// Writes a message to wire bytes. Header fields go out as parsed (unfolded, canonical names), so
// parse(serialize(m)) gives m back; `compact` trades names for their one-letter forms on UDP.
import { compactName } from './header-names.js';
import type { SipMessage } from './types.js';
import { formatUri } from './uri.js';

export interface SerializeOptions {
  readonly compact?: boolean;
}

export function startLine(m: SipMessage): string {
  return m.kind === 'request'
    ? `${m.method} ${formatUri(m.uri)} ${m.version}`
    : `${m.version} ${m.status} ${m.reason}`;
}

export function serializeHead(m: SipMessage, options: SerializeOptions = {}): string {
  let out = startLine(m) + '\r\n';
  for (const h of m.headers) {
    const name = (options.compact && compactName(h.name)) || h.name;
    out += `${name}: ${h.value}\r\n`;
  }
  return out + '\r\n';
}

export function serialize(m: SipMessage, options: SerializeOptions = {}): Buffer {
  const head = Buffer.from(serializeHead(m, options), 'utf8');
  return m.body.length === 0 ? head : Buffer.concat([head, m.body]);
}
