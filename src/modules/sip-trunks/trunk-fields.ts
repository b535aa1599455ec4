// The two trunk fields with a grammar of their own: termination_uri (where outbound calls go)
// and allowed_ips (which source addresses may send inbound INVITEs). Pure, so the API validates
// with the same code the dialer and the SIP listener use to read them.
//
// termination_uri, accepted forms (host = DNS name, dotted IPv4, or [IPv6] in brackets):
//   host                  carrier.example.com
//   host:port             carrier.example.com:5061
//   sip:host[:port]       sip:carrier.example.com;transport=tls   (URI parameters allowed)
//   sips:host[:port]
//   sip:user@host[:port]  sip:trunk1@203.0.113.5:5080
// No headers (`?…`), no spaces; port 1-65535; at most 500 characters.
//
// allowed_ips: CIDR strings, IPv4 or IPv6. A bare address is accepted and stored as /32 or /128.
// Addresses are stored in canonical form (IPv6 compressed, lower case; IPv4-mapped IPv6 as IPv4);
// host bits are kept as written and ignored when matching (10.0.0.7/24 admits 10.0.0.0-.255).
import ipaddr from 'ipaddr.js';

export interface TerminationTarget {
  scheme: 'sip' | 'sips' | null;
  user: string | null;
  /** DNS name, dotted IPv4, or IPv6 without brackets. */
  host: string;
  port: number | null;
  /** URI parameters as written, e.g. `;transport=tls`, or ''. */
  params: string;
}

const URI =
  /^(?:(sips?):(?:([A-Za-z0-9\-_.!~*'()%&=+$,]+)@)?)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?((?:;[A-Za-z0-9\-_.!~*'()%]+(?:=[A-Za-z0-9\-_.!~*'()%[\]:]+)?)*)$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export const MAX_ALLOWED_IPS = 100;

/** Parses a termination URI in one of the accepted forms; null when it is none of them. */
export function parseTerminationUri(input: string): TerminationTarget | null {
  if (input.length > 500) return null;
  const m = URI.exec(input);
  if (!m) return null;
  const [, scheme, user, rawHost, rawPort, params] = m;
  // Params without a scheme would read `host;x` as a URI; only full URIs carry parameters.
  if (!scheme && params) return null;
  const host = validHost(rawHost!);
  if (host === null) return null;
  const port = rawPort === undefined ? null : Number(rawPort);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return {
    scheme: (scheme as 'sip' | 'sips' | undefined) ?? null,
    user: user ?? null,
    host,
    port,
    params: params ?? '',
  };
}

function validHost(raw: string): string | null {
  if (raw.startsWith('[')) {
    const inner = raw.slice(1, -1);
    return ipaddr.IPv6.isValid(inner) ? inner : null;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(raw)) return raw;
  const labels = raw.replace(/\.$/, '').split('.');
  if (raw.length > 253 || labels.some((l) => !LABEL.test(l))) return null;
  // A numeric last label is a malformed IPv4 address, not a name.
  if (/^\d+$/.test(labels[labels.length - 1]!)) return null;
  return raw;
}

/** A CIDR (or bare address) in canonical form, or null when it is not one. */
export function normalizeCidr(input: string): string | null {
  const text = input.trim();
  const slash = text.indexOf('/');
  const addrText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? null : text.slice(slash + 1);
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(addrText)) addr = ipaddr.IPv4.parse(addrText);
  else if (!addrText.includes('%') && ipaddr.IPv6.isValid(addrText)) addr = ipaddr.IPv6.parse(addrText);
  else return null;
  const max = addr.kind() === 'ipv4' ? 32 : 128;
  if (prefixText !== null && !/^\d{1,3}$/.test(prefixText)) return null;
  let prefix = prefixText === null ? max : Number(prefixText);
  if (prefix > max) return null;
  // Sources are matched as IPv4 when they come IPv4-mapped, so such ranges are kept as IPv4 too.
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  const shown = addr.kind() === 'ipv4' ? addr.toString() : (addr as ipaddr.IPv6).toRFC5952String();
  return `${shown}/${prefix}`;
}

/**
 * Whether a source address may send to a trunk. An empty list admits everyone. IPv4-mapped IPv6
 * sources (how dual-stack sockets report IPv4 peers) are compared as IPv4.
 */
export function ipAllowed(allowed: readonly string[], source: string): boolean {
  if (allowed.length === 0) return true;
  if (!ipaddr.isValid(source)) return false;
  let addr = ipaddr.parse(source);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return allowed.some((cidr) => {
    try {
      const range = ipaddr.parseCIDR(cidr);
      return range[0].kind() === addr.kind() && addr.match(range);
    } catch {
      return false;
    }
  });
}
