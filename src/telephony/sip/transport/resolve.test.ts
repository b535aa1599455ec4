// RFC 3263 server location against a fake DNS: NAPTR, SRV, A/AAAA, transport choice, ports from
// SRV, RFC 2782 ordering, and the fallback list. No real DNS anywhere.
import { describe, expect, it } from 'vitest';
import type { DnsClient, NaptrAnswer, SrvAnswer } from './resolve.js';
import { SipResolveError, SipResolver, orderSrv } from './resolve.js';

interface Zone {
  naptr?: Record<string, NaptrAnswer[]>;
  srv?: Record<string, SrvAnswer[]>;
  a?: Record<string, string[]>;
  aaaa?: Record<string, string[]>;
  /** Names whose every query fails with this code instead of NXDOMAIN. */
  fail?: Record<string, string>;
}

function fakeDns(zone: Zone): DnsClient & { queries: string[] } {
  const queries: string[] = [];
  const answer = <T>(type: string, table: Record<string, T[]> | undefined, name: string): Promise<T[]> => {
    queries.push(`${type} ${name}`);
    const code = zone.fail?.[name];
    if (code) return Promise.reject(Object.assign(new Error(code), { code }));
    const rows = table?.[name];
    if (!rows) return Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
    return Promise.resolve(rows);
  };
  return {
    queries,
    resolveNaptr: (n) => answer('NAPTR', zone.naptr, n),
    resolveSrv: (n) => answer('SRV', zone.srv, n),
    resolve4: (n) => answer('A', zone.a, n),
    resolve6: (n) => answer('AAAA', zone.aaaa, n),
  };
}

const naptr = (order: number, preference: number, service: string, replacement: string): NaptrAnswer => ({
  flags: 'S',
  service,
  regexp: '',
  replacement,
  order,
  preference,
});
const srv = (name: string, port: number, priority = 10, weight = 0): SrvAnswer => ({
  name,
  port,
  priority,
  weight,
});
const hops = (list: { transport: string; host: string; port: number }[]) =>
  list.map((d) => `${d.transport} ${d.host}:${d.port}`);

describe('RFC 3263 resolution', () => {
  it('uses an IP literal as it is, without DNS: UDP for sip, TLS for sips, default ports', async () => {
    const dns = fakeDns({});
    const r = new SipResolver({ dns });
    expect(hops(await r.resolve({ host: '192.0.2.10', port: null }))).toEqual(['UDP 192.0.2.10:5060']);
    expect(hops(await r.resolve({ host: '[2001:db8::1]', port: 5080, transport: 'tcp' }))).toEqual([
      'TCP 2001:db8::1:5080',
    ]);
    expect(hops(await r.resolve({ host: '192.0.2.10', port: null, secure: true }))).toEqual([
      'TLS 192.0.2.10:5061',
    ]);
    expect(dns.queries).toEqual([]);
    const [d] = await r.resolve({ host: '192.0.2.10', port: null, transport: 'tls' });
    expect(d).toEqual({ transport: 'TLS', host: '192.0.2.10', port: 5061, reliable: true });
  });

  it('with an explicit port skips NAPTR and SRV and looks up A then AAAA', async () => {
    const dns = fakeDns({
      a: { 'pbx.example.com': ['192.0.2.1'] },
      aaaa: { 'pbx.example.com': ['2001:db8::5'] },
    });
    const out = await new SipResolver({ dns }).resolve({ host: 'pbx.example.com', port: 5070 });
    expect(hops(out)).toEqual(['UDP 192.0.2.1:5070', 'UDP 2001:db8::5:5070']);
    expect(dns.queries).toEqual(['A pbx.example.com', 'AAAA pbx.example.com']);
  });

  it('follows NAPTR in order and preference to SRV, taking ports and hosts from SRV', async () => {
    const dns = fakeDns({
      naptr: {
        'example.com': [
          naptr(50, 50, 'SIP+D2U', '_sip._udp.example.com'),
          naptr(10, 60, 'SIP+D2T', '_sip._tcp.example.com'),
          naptr(10, 50, 'SIPS+D2T', '_sips._tcp.example.com'),
          naptr(5, 1, 'SIP+D2S', '_sip._sctp.example.com'), // SCTP: we do not speak it
        ],
      },
      srv: {
        '_sips._tcp.example.com': [srv('tls1.example.com', 5161)],
        '_sip._tcp.example.com': [srv('tcp1.example.com', 5160)],
        '_sip._udp.example.com': [srv('udp1.example.com', 5062)],
      },
      a: {
        'tls1.example.com': ['192.0.2.11'],
        'tcp1.example.com': ['192.0.2.12'],
        'udp1.example.com': ['192.0.2.13'],
      },
    });
    const out = await new SipResolver({ dns, families: [4] }).resolve({ host: 'example.com', port: null });
    expect(hops(out)).toEqual(['TLS 192.0.2.11:5161', 'TCP 192.0.2.12:5160', 'UDP 192.0.2.13:5062']);
    expect(out[0].reliable).toBe(true);
    expect(out[2].reliable).toBe(false);
    expect(dns.queries[0]).toBe('NAPTR example.com');
  });

  it('keeps to our transports, and to TLS for sips', async () => {
    const zone: Zone = {
      naptr: {
        'example.com': [
          naptr(10, 10, 'SIP+D2T', '_sip._tcp.example.com'),
          naptr(20, 10, 'SIPS+D2T', '_sips._tcp.example.com'),
        ],
      },
      srv: {
        '_sip._tcp.example.com': [srv('tcp1.example.com', 5060)],
        '_sips._tcp.example.com': [srv('tls1.example.com', 5061)],
      },
      a: { 'tcp1.example.com': ['192.0.2.12'], 'tls1.example.com': ['192.0.2.11'] },
    };
    const udpOnly = new SipResolver({ dns: fakeDns(zone), transports: ['UDP', 'TLS'], families: [4] });
    expect(hops(await udpOnly.resolve({ host: 'example.com', port: null }))).toEqual(['TLS 192.0.2.11:5061']);
    const any = new SipResolver({ dns: fakeDns(zone), families: [4] });
    expect(hops(await any.resolve({ host: 'example.com', port: null, secure: true }))).toEqual([
      'TLS 192.0.2.11:5061',
    ]);
  });

  it('without NAPTR tries SRV for each transport we speak, in our order', async () => {
    const dns = fakeDns({
      srv: {
        '_sip._tcp.example.com': [srv('b.example.com', 5060)],
        '_sip._udp.example.com': [srv('a.example.com', 5060)],
      },
      a: { 'a.example.com': ['192.0.2.1'], 'b.example.com': ['192.0.2.2'] },
    });
    const out = await new SipResolver({ dns, families: [4] }).resolve({ host: 'example.com', port: null });
    expect(hops(out)).toEqual(['UDP 192.0.2.1:5060', 'TCP 192.0.2.2:5060']);
    expect(dns.queries).toEqual([
      'NAPTR example.com',
      'SRV _sip._udp.example.com',
      'A a.example.com',
      'SRV _sip._tcp.example.com',
      'A b.example.com',
      'SRV _sips._tcp.example.com',
    ]);
  });

  it('with a given transport asks only that SRV, and falls back to A/AAAA with the default port', async () => {
    const dns = fakeDns({
      srv: { '_sip._udp.trunk.example.net': [srv('edge.example.net', 5080)] },
      a: { 'trunk.example.net': ['198.51.100.7'], 'edge.example.net': ['198.51.100.8'] },
    });
    const r = new SipResolver({ dns, families: [4] });
    expect(hops(await r.resolve({ host: 'trunk.example.net', port: null, transport: 'tls' }))).toEqual([
      'TLS 198.51.100.7:5061',
    ]);
    expect(dns.queries).toEqual(['SRV _sips._tcp.trunk.example.net', 'A trunk.example.net']);
    expect(hops(await r.resolve({ host: 'trunk.example.net', port: null, transport: 'udp' }))).toEqual([
      'UDP 198.51.100.8:5080',
    ]);
  });

  it('lists every SRV target and address for fallback, by priority, skipping "." targets', async () => {
    const dns = fakeDns({
      srv: {
        '_sip._udp.example.com': [
          srv('backup.example.com', 5060, 20),
          srv('.', 0, 5),
          srv('main.example.com', 5060, 10),
        ],
      },
      a: { 'main.example.com': ['192.0.2.1', '192.0.2.2'], 'backup.example.com': ['192.0.2.9'] },
      aaaa: { 'main.example.com': ['2001:db8::1'] },
    });
    const out = await new SipResolver({ dns }).resolve({ host: 'example.com', port: null, transport: 'udp' });
    expect(hops(out)).toEqual([
      'UDP 192.0.2.1:5060',
      'UDP 192.0.2.2:5060',
      'UDP 2001:db8::1:5060',
      'UDP 192.0.2.9:5060',
    ]);
  });

  it('goes on past failing queries and reports them all when nothing is left', async () => {
    const dns = fakeDns({
      fail: { 'example.com': 'ESERVFAIL' },
      srv: { '_sip._udp.example.com': [srv('gone.example.com', 5060)] },
    });
    const err = await new SipResolver({ dns, families: [4] })
      .resolve({ host: 'example.com', port: null, transport: 'udp' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SipResolveError);
    expect((err as SipResolveError).causes).toEqual([
      'gone.example.com: ENOTFOUND',
      'example.com: ESERVFAIL',
    ]);
  });

  it('orders SRV by priority, then weighted random (RFC 2782), zero weights only on a zero pick', () => {
    const records = [srv('w0', 1, 10, 0), srv('w60', 1, 10, 60), srv('w40', 1, 10, 40), srv('p5', 1, 5, 0)];
    const names = (random: () => number) => orderSrv(records, random).map((r) => r.name);
    // Picks: 0 → the first in running order (zero weights lead), so w0 comes first.
    expect(names(() => 0)).toEqual(['p5', 'w0', 'w60', 'w40']);
    // A high pick lands on the last running sum each time.
    expect(names(() => 0.99)).toEqual(['p5', 'w40', 'w60', 'w0']);
    // Over many picks the first choice follows the weights, and w0 almost never leads.
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const first = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const n = orderSrv(records, rnd)[1].name;
      first.set(n, (first.get(n) ?? 0) + 1);
    }
    expect(first.get('w60')! / 10_000).toBeCloseTo(0.6, 1);
    expect(first.get('w40')! / 10_000).toBeCloseTo(0.4, 1);
    expect(first.get('w0') ?? 0).toBeLessThan(10);
  });

  it('drops duplicates when two records lead to the same address', async () => {
    const dns = fakeDns({
      srv: { '_sip._udp.example.com': [srv('a.example.com', 5060, 10), srv('b.example.com', 5060, 20)] },
      a: { 'a.example.com': ['192.0.2.1'], 'b.example.com': ['192.0.2.1'] },
    });
    const out = await new SipResolver({ dns, families: [4] }).resolve({
      host: 'example.com',
      port: null,
      transport: 'udp',
    });
    expect(hops(out)).toEqual(['UDP 192.0.2.1:5060']);
  });
});
