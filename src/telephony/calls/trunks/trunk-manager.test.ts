// The trunk manager on the fake clock, over a real store and a stack that only records what it is
// asked to send: trunks picked up, replaced and dropped by the periodic read, the bindings' and
// pingers' findings written on the trunk, and which INVITEs it recognises as a trunk's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import { createReply } from '../../sip/message/build.js';
import { getHeader } from '../../sip/message/access.js';
import type { SipRequest } from '../../sip/message/types.js';
import { parseUri } from '../../sip/message/uri.js';
import type { ClientHandlers } from '../../sip/transaction/client.js';
import { contactToken } from './trunk-addresses.js';
import { TrunkManager } from './trunk-manager.js';

describe.each(storeKinds())('TrunkManager on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  beforeAll(async () => {
    t = await startTestApi(kind);
    w = await callWorld(t);
  });
  afterAll(() => t.close());

  /** Retries `check` while the store's reads and writes land (PostgreSQL answers over a socket). */
  const until = async (check: () => unknown): Promise<void> => {
    for (;;) {
      try {
        await check();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  const row = () =>
    t.store.db.selectFrom('sip_trunks').selectAll().where('id', '=', w.trunkId).executeTakeFirstOrThrow();
  const patch = (body: unknown) => t.call('PATCH', `/api/v1/sip-trunks/${w.trunkId}`, { body });

  it('follows the trunks on its sync period and writes what the registrar and the pings say', async () => {
    const sent: Array<{ req: SipRequest; h: ClientHandlers }> = [];
    const manager = new TrunkManager({
      deps: t.deps,
      stack: {
        clock: t.clock,
        transactions: { sendRequest: (req, _to, h) => void sent.push({ req, h }) },
        keepAlive: () => true,
        connectionTo: () => undefined,
      },
      local: { host: '192.0.2.10', udp: 5060 },
      syncMs: 15_000,
    });
    await manager.start();
    expect(manager.size).toEqual({ bindings: 0, pingers: 0 });

    expect((await patch({ register: true, health_check: true })).statusCode).toBe(200);
    t.clock.advance(15_000);
    await until(() => expect(manager.size).toEqual({ bindings: 1, pingers: 1 }));
    await until(() => expect(sent.map((s) => s.req.method).sort()).toEqual(['OPTIONS', 'REGISTER']));
    const register = sent.find((s) => s.req.method === 'REGISTER')!;
    const contact = getHeader(register.req, 'Contact')!;
    expect(contact).toContain(`;sb-trunk=${contactToken(t.deps.keys.joinToken, w.trunkId)}`);
    register.h.onResponse(
      createReply(register.req, 200, 'OK', { toTag: 'r', headers: [['Contact', `${contact};expires=600`]] }),
      {} as never,
    );
    const ping = sent.find((s) => s.req.method === 'OPTIONS')!;
    ping.h.onResponse(createReply(ping.req, 200, 'OK', { toTag: 'p' }), {} as never);
    await until(async () =>
      expect(await row()).toMatchObject({
        registration_status: 'registered',
        registration_error: null,
        registered_until: new Date(t.clock.now() + 600_000).toISOString(),
        health: 'up',
      }),
    );

    // An INVITE to our Contact is the trunk's; a forged MAC or another trunk's id is not.
    const inviteTo = (uri: string) => ({ uri: parseUri(uri) }) as SipRequest;
    const source = { transport: 'UDP' as const, address: '203.0.113.5', port: 5060 };
    expect(manager.trunkOfRequest(inviteTo(contact.slice(1, -1)), source)).toBe(w.trunkId);
    expect(
      manager.trunkOfRequest(inviteTo(`sip:a@192.0.2.10;sb-trunk=${w.trunkId}.0000000000000000`), source),
    ).toBeUndefined();
    expect(manager.trunkOfRequest(inviteTo(`sip:+14155550100@${w.host}`), source)).toBeUndefined();

    // A new password: a new binding (the old one unregisters with Expires: 0).
    const before = sent.length;
    expect((await patch({ auth_password: 'another-secret' })).statusCode).toBe(200);
    t.clock.advance(15_000);
    await until(async () => {
      const fresh = sent.slice(before).filter((s) => s.req.method === 'REGISTER');
      expect(fresh.map((s) => getHeader(s.req, 'Expires'))).toEqual(['0', '3600']);
      expect((await row()).registration_status).toBe('registering');
    });

    // Turned off: nothing kept, and the pings stop.
    expect((await patch({ register: false, health_check: false })).statusCode).toBe(200);
    t.clock.advance(15_000);
    await until(() => expect(manager.size).toEqual({ bindings: 0, pingers: 0 }));
    await manager.stop();
    expect(await row()).toMatchObject({ registration_status: null, health: null });
  });
});
