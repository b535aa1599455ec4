// Which IP addresses a webhook may connect to. Only ordinary public unicast addresses are allowed;
// every special range ipaddr.js knows (loopback, RFC 1918 private, link-local incl. the cloud
// metadata address 169.254.169.254, CGNAT 100.64/10, multicast, unspecified, broadcast,
// IPv4-mapped/compatible IPv6, ULA fc00::/7, fe80::/10, documentation, benchmarking, 6to4, Teredo,
// NAT64, reserved…) is refused unless an operator lists it in WEBHOOK_ALLOWED_CIDRS.
import ipaddr from 'ipaddr.js';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

export class AddressPolicy {
  private readonly allowed: Array<[Addr, number]>;

  constructor(allowedCidrs: readonly string[] = []) {
    this.allowed = allowedCidrs.map((cidr) => {
      try {
        return ipaddr.parseCIDR(cidr.trim());
      } catch {
        throw new Error(`WEBHOOK_ALLOWED_CIDRS: "${cidr}" is not a CIDR range (e.g. 127.0.0.0/8)`);
      }
    });
  }

  /** True when the address lies inside one of the operator's allowed ranges. */
  isAllowedByOperator(address: string): boolean {
    const addr = parse(address);
    if (!addr) return false;
    const forms: Addr[] = [addr];
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
      forms.push((addr as ipaddr.IPv6).toIPv4Address());
    }
    return this.allowed.some(([net, bits]) =>
      forms.some((f) => f.kind() === net.kind() && f.match(net, bits)),
    );
  }

  /** Null when the address may be used, else why not (the range name), for the delivery log. */
  refusal(address: string): string | null {
    const addr = parse(address);
    if (!addr) return 'not an IP address';
    if (this.isAllowedByOperator(address)) return null;
    const range = addr.range();
    return range === 'unicast' ? null : range;
  }
}

function parse(address: string): Addr | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Zone ids (fe80::1%eth0) are only meaningful on link-local addresses, which are refused anyway.
  const noZone = bare.split('%')[0]!;
  return ipaddr.isValid(noZone) ? ipaddr.parse(noZone) : null;
}

export class SsrfRefusedError extends Error {
  readonly code = 'ESSRFREFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(
      `Refused to connect to ${address}${host !== address ? ` (resolved from "${host}")` : ''}: ` +
        `${range} addresses are not reachable by webhooks unless listed in WEBHOOK_ALLOWED_CIDRS.`,
    );
    this.name = 'SsrfRefusedError';
  }
}
