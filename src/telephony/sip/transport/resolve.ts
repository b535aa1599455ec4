// Locating SIP servers (RFC 3263 4): from a target's host, port and transport to the ordered list
// of destinations to try. NAPTR picks the transport when none is given, SRV the hosts and ports
// (RFC 2782 priority, then weighted random), A/AAAA the addresses; an explicit port skips SRV and
// an IP literal skips DNS. The DNS client is injected (node:dns/promises by default), so tests
// never touch the network.
import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Destination, TransportName } from '../transaction/types.js';
import { isReliable } from './routing.js';

export interface NaptrAnswer {
  readonly flags: string;
  readonly service: string;
  readonly regexp: string;
  readonly replacement: string;
  readonly order: number;
  readonly preference: number;
}

export interface SrvAnswer {
  readonly name: string;
  readonly port: number;
  readonly priority: number;
  readonly weight: number;
}

/** The four queries RFC 3263 needs; node:dns/promises (or a dns.promises.Resolver) fits. */
export interface DnsClient {
  resolveNaptr(name: string): Promise<NaptrAnswer[]>;
  resolveSrv(name: string): Promise<SrvAnswer[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
}

export type SipTransportParam = 'udp' | 'tcp' | 'tls';
/** The transports RFC 3263 can pick between. */
type Wire = 'UDP' | 'TCP' | 'TLS';

export interface ResolveTarget {
  /** DNS name, IPv4, or IPv6 (with or without brackets). */
  readonly host: string;
  readonly port: number | null;
  /** The URI's transport (or the trunk's); undefined lets NAPTR and SRV choose. */
  readonly transport?: SipTransportParam;
  /** A sips: URI: TLS only (RFC 3263 4.1). */
  readonly secure?: boolean;
}

export interface SipResolverOptions {
  readonly dns?: DnsClient;
  /** Transports we can send on, in our order of preference when the server offers several. */
  readonly transports?: readonly Wire[];
  /** Address families to look up, in order (default IPv4 then IPv6). */
  readonly families?: readonly (4 | 6)[];
  /** For the SRV weighted choice; [0, 1). */
  readonly random?: () => number;
}

/** Nothing to send to: every query came back empty or failed. */
export class SipResolveError extends Error {
  constructor(
    readonly host: string,
    readonly causes: readonly string[],
  ) {
    super(`no SIP destination for ${host}${causes.length ? ` (${causes.join(', ')})` : ''}`);
    this.name = 'SipResolveError';
  }
}

const NAPTR_SERVICES: Record<string, Wire | undefined> = {
  'SIP+D2U': 'UDP',
  'SIP+D2T': 'TCP',
  'SIPS+D2T': 'TLS',
};
const SRV_PREFIX: Record<Wire, string> = { UDP: '_sip._udp', TCP: '_sip._tcp', TLS: '_sips._tcp' };

const defaultPort = (t: TransportName): number => (t === 'TLS' ? 5061 : 5060);
const bare = (host: string): string =>
  host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;

/**
 * Orders SRV records (RFC 2782): by priority, and within one priority by repeated weighted random
 * picks: zero weights first, running sums, the first record whose running sum reaches a uniform
 * number in [0, total].
 */
export function orderSrv(records: readonly SrvAnswer[], random: () => number): SrvAnswer[] {
  const priorities = [...new Set(records.map((r) => r.priority))].sort((a, b) => a - b);
  const out: SrvAnswer[] = [];
  for (const priority of priorities) {
    const left = records
      .filter((r) => r.priority === priority)
      .sort((a, b) => (a.weight === 0 ? 0 : 1) - (b.weight === 0 ? 0 : 1));
    while (left.length > 0) {
      const total = left.reduce((t, r) => t + r.weight, 0);
      const pick = random() * total;
      let running = 0;
      let i = 0;
      for (; i < left.length - 1; i++) {
        running += left[i].weight;
        if (running >= pick) break;
      }
      out.push(left.splice(i, 1)[0]);
    }
  }
  return out;
}

export class SipResolver {
  private readonly dns: DnsClient;
  private readonly transports: readonly Wire[];
  private readonly families: readonly (4 | 6)[];
  private readonly random: () => number;

  constructor(options: SipResolverOptions = {}) {
    this.dns = options.dns ?? dns;
    this.transports = options.transports ?? ['UDP', 'TCP', 'TLS'];
    this.families = options.families ?? [4, 6];
    this.random = options.random ?? Math.random;
  }

  /**
   * Every destination to try, in order (RFC 3263 4.3: on a transport error, a timeout or a 503 the
   * request goes to the next one with a new branch). Throws SipResolveError when there is none.
   */
  async resolve(target: ResolveTarget): Promise<Destination[]> {
    const host = bare(target.host);
    const causes: string[] = [];
    const given = this.givenTransport(target);
    // An IP literal: no DNS at all; the transport is the given one, else UDP (sip) or TLS (sips).
    if (isIP(host) !== 0) {
      const t = given ?? (target.secure ? 'TLS' : 'UDP');
      return [this.destination(t, host, target.port ?? defaultPort(t))];
    }
    // An explicit port: no NAPTR and no SRV, just the addresses (RFC 3263 4.1, 4.2).
    if (target.port !== null) {
      const t = given ?? (target.secure ? 'TLS' : 'UDP');
      const out = (await this.addresses(host, causes)).map((a) => this.destination(t, a, target.port!));
      if (out.length === 0) throw new SipResolveError(host, causes);
      return out;
    }
    const candidates: Array<{ transport: Wire; srvName: string }> = [];
    if (given) candidates.push({ transport: given, srvName: `${SRV_PREFIX[given]}.${host}` });
    else {
      candidates.push(...(await this.naptr(host, target.secure === true, causes)));
      if (candidates.length === 0) {
        // No usable NAPTR: SRV for every transport we speak (only TLS for sips), our order.
        for (const t of this.transports) {
          if (target.secure && t !== 'TLS') continue;
          candidates.push({ transport: t, srvName: `${SRV_PREFIX[t]}.${host}` });
        }
      }
    }
    const out: Destination[] = [];
    for (const c of candidates) {
      const srv = orderSrv(
        await this.query(() => this.dns.resolveSrv(c.srvName), c.srvName, causes),
        this.random,
      );
      // A single "." target means the service is decidedly not available there (RFC 2782).
      for (const r of srv.filter((r) => r.name !== '' && r.name !== '.')) {
        for (const a of await this.addresses(r.name, causes))
          out.push(this.destination(c.transport, a, r.port));
      }
    }
    if (out.length === 0) {
      // No SRV at all: the host's own addresses on the default transport and port (RFC 3263 4.2).
      const t = given ?? candidates[0]?.transport ?? (target.secure ? 'TLS' : 'UDP');
      for (const a of await this.addresses(host, causes)) out.push(this.destination(t, a, defaultPort(t)));
    }
    if (out.length === 0) throw new SipResolveError(host, causes);
    return dedupe(out);
  }

  private givenTransport(target: ResolveTarget): Wire | undefined {
    if (target.secure) return 'TLS';
    return target.transport ? (target.transport.toUpperCase() as Wire) : undefined;
  }

  private destination(transport: TransportName, host: string, port: number): Destination {
    return { transport, host, port, reliable: isReliable(transport) };
  }

  private async naptr(
    host: string,
    secure: boolean,
    causes: string[],
  ): Promise<Array<{ transport: Wire; srvName: string }>> {
    const records = await this.query(() => this.dns.resolveNaptr(host), host, causes);
    // Only SRV-pointing records ("s") for services we speak; for sips only SIPS+D2T (RFC 3263 4.1).
    const usable = records.filter((r) => {
      const t = NAPTR_SERVICES[r.service.toUpperCase()];
      if (t === undefined || !this.transports.includes(t) || (secure && t !== 'TLS')) return false;
      return r.flags.toLowerCase() === 's' && r.replacement !== '' && r.replacement !== '.';
    });
    return usable
      .sort((a, b) => a.order - b.order || a.preference - b.preference)
      .map((r) => ({ transport: NAPTR_SERVICES[r.service.toUpperCase()]!, srvName: r.replacement }));
  }

  private async addresses(name: string, causes: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const family of this.families) {
      const q = family === 4 ? () => this.dns.resolve4(name) : () => this.dns.resolve6(name);
      out.push(...(await this.query(q, name, causes)));
    }
    return out;
  }

  /** One query; a failure (NXDOMAIN, no data, timeout) counts as no answer and is remembered. */
  private async query<T>(fn: () => Promise<T[]>, name: string, causes: string[]): Promise<T[]> {
    try {
      return await fn();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      causes.push(`${name}: ${code}`);
      return [];
    }
  }
}

function dedupe(list: Destination[]): Destination[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.transport} ${d.host} ${d.port}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
