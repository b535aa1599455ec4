import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startReceiver, type Receiver } from '../../test/support/receiver.js';
import { AddressPolicy } from './address-policy.js';
import { createGuardedAgent, type Resolver } from './ssrf-guard.js';

const fakeDns =
  (answers: Record<string, string[]>): Resolver =>
  async (host) =>
    (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('AddressPolicy', () => {
  const refused = [
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
  ];
  const policy = new AddressPolicy();

  it.each(refused)('refuses %s (%s)', (address, range) => {
    expect(policy.refusal(address)).toBe(range);
  });

  it('allows public unicast addresses', () => {
    expect(policy.refusal('8.8.8.8')).toBeNull();
    expect(policy.refusal('2606:4700::1111')).toBeNull();
  });

  it('allows ranges the operator lists, mapped IPv6 forms included', () => {
    const p = new AddressPolicy(['127.0.0.0/8', 'fd00::/8']);
    expect(p.refusal('127.0.0.1')).toBeNull();
    expect(p.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(p.refusal('fd00::5')).toBeNull();
    expect(p.refusal('10.0.0.1')).toBe('private');
    expect(() => new AddressPolicy(['not-a-cidr'])).toThrow(/WEBHOOK_ALLOWED_CIDRS/);
  });
});

describe('guarded agent', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  async function post(url: string, allowed: string[], dns: Record<string, string[]> = {}) {
    const agent = createGuardedAgent({ policy: new AddressPolicy(allowed), resolver: fakeDns(dns) });
    try {
      const res = await request(url, { method: 'POST', body: '{}', dispatcher: agent });
      await res.body.dump();
      return res.statusCode;
    } finally {
      await agent.close();
    }
  }

  it('refuses literal private and special IPs before connecting', async () => {
    const before = receiver.received.length;
    await expect(post(`${receiver.url}/x`, [])).rejects.toThrow(
      /Refused to connect to 127\.0\.0\.1: loopback/,
    );
    await expect(post(`http://[::1]:${receiver.port}/`, [])).rejects.toThrow(/loopback/);
    await expect(post(`http://[::ffff:127.0.0.1]:${receiver.port}/`, [])).rejects.toThrow(/ipv4Mapped/);
    await expect(post('http://169.254.169.254/latest/meta-data', [])).rejects.toThrow(/linkLocal/);
    await expect(post('http://100.64.1.1/', [])).rejects.toThrow(/carrierGradeNat/);
    expect(receiver.received.length).toBe(before);
  });

  it('refuses names that resolve to private addresses, checking every answer', async () => {
    const dns = {
      'hooks.example.test': ['127.0.0.1'],
      'mixed.example.test': ['93.184.216.34', '10.0.0.7'],
      'meta.example.test': ['169.254.169.254'],
      'v6.example.test': ['fd00::1'],
    };
    const port = receiver.port;
    await expect(post(`http://hooks.example.test:${port}/`, [], dns)).rejects.toThrow(
      /127\.0\.0\.1 \(resolved from "hooks\.example\.test"\): loopback/,
    );
    await expect(post(`http://mixed.example.test:${port}/`, [], dns)).rejects.toThrow(/10\.0\.0\.7.*private/);
    await expect(post(`http://meta.example.test:${port}/`, [], dns)).rejects.toThrow(/linkLocal/);
    await expect(post(`http://v6.example.test:${port}/`, [], dns)).rejects.toThrow(/uniqueLocal/);
  });

  it('connects to the checked address when the operator allows its range', async () => {
    const before = receiver.received.length;
    expect(await post(`${receiver.url}/ok`, ['127.0.0.0/8'])).toBe(204);
    expect(
      await post(`http://hooks.example.test:${receiver.port}/ok`, ['127.0.0.0/8'], {
        'hooks.example.test': ['127.0.0.1'],
      }),
    ).toBe(204);
    expect(receiver.received.length).toBe(before + 2);
  });

  it('checks at connect time, so a re-pointed name (DNS rebinding) is refused', async () => {
    let answer = '93.184.216.34';
    const resolver: Resolver = async () => [{ address: answer, family: 4 }];
    const agent = createGuardedAgent({ policy: new AddressPolicy(), resolver });
    // First answer public: the name passes any save-time check. At dial time it points inward.
    answer = '127.0.0.1';
    await expect(
      request(`http://rebind.example.test:${receiver.port}/`, {
        method: 'POST',
        body: '{}',
        dispatcher: agent,
      }),
    ).rejects.toThrow(/127\.0\.0\.1.*loopback/);
    await agent.close();
  });
});
