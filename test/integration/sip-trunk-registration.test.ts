// The registration and health fields of /sip-trunks: what the customer sets (register,
// registrar_uri, health_check) and how what the SIP node found out (registration_status, its
// error, registered_until, health) starts afresh when what it acted on changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sipTrunksRepo } from '../../src/modules/sip-trunks/sip-trunks.repo.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { storeKinds } from '../support/stores.js';
import { createTrunk } from './testing/telephony.js';

type Json = { data: Record<string, unknown> };
type Errors = { message: string; errors: Record<string, string[]> };

describe.each(storeKinds())('sip trunk registration fields on $name', (kind) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi(kind);
  });
  afterAll(() => t.close());

  const get = async (id: unknown) => ((await t.call('GET', `/api/v1/sip-trunks/${id}`)).data as Json).data;
  const patch = async (id: unknown, body: unknown) => {
    const res = await t.call('PATCH', `/api/v1/sip-trunks/${id}`, { body });
    expect(res.statusCode, res.body).toBe(200);
    return (res.data as Json).data;
  };

  it('starts registering and unknown when asked for on create', async () => {
    const trunk = await createTrunk(t, {
      register: true,
      registrar_uri: ' sip:registrar.example-carrier.com:5080 ',
      health_check: true,
    });
    expect(trunk).toMatchObject({
      register: true,
      registrar_uri: 'sip:registrar.example-carrier.com:5080',
      registration_status: 'registering',
      registration_error: null,
      registered_until: null,
      health_check: true,
      health: 'unknown',
    });
  });

  it("shows the node's findings and resets them only when what they depend on changes", async () => {
    const trunk = await createTrunk(t, { register: true, health_check: true });
    await sipTrunksRepo.setRegistration(t.store.db, trunk.id as string, {
      status: 'failed',
      error: '403 Forbidden from the registrar',
      until: null,
    });
    await sipTrunksRepo.setHealth(t.store.db, trunk.id as string, 'down');
    expect(await get(trunk.id)).toMatchObject({
      registration_status: 'failed',
      registration_error: '403 Forbidden from the registrar',
      health: 'down',
    });
    // A new name changes nothing the node acted on.
    expect(await patch(trunk.id, { name: 'renamed' })).toMatchObject({
      registration_status: 'failed',
      health: 'down',
    });
    // A new password: register again; the termination host is the same, so health stays.
    expect(await patch(trunk.id, { auth_password: 'another' })).toMatchObject({
      registration_status: 'registering',
      registration_error: null,
      health: 'down',
    });
    expect(await patch(trunk.id, { termination_uri: 'sip:other.example-carrier.com' })).toMatchObject({
      registration_status: 'registering',
      health: 'unknown',
    });
    await sipTrunksRepo.setRegistration(t.store.db, trunk.id as string, {
      status: 'registered',
      error: null,
      until: '2026-11-02T11:00:00.000Z',
    });
    expect(await get(trunk.id)).toMatchObject({
      registration_status: 'registered',
      registered_until: '2026-11-02T11:00:00Z',
    });
    // Off: null, and the node's late writes do not bring the status back.
    const off = await patch(trunk.id, { register: false, health_check: false });
    expect(off).toMatchObject({
      register: false,
      registration_status: null,
      health_check: false,
      health: null,
    });
    await sipTrunksRepo.setRegistration(t.store.db, trunk.id as string, {
      status: 'registered',
      error: null,
      until: null,
    });
    await sipTrunksRepo.setHealth(t.store.db, trunk.id as string, 'up');
    expect(await get(trunk.id)).toMatchObject({ registration_status: null, health: null });
    expect(await patch(trunk.id, { register: true })).toMatchObject({ registration_status: 'registering' });
  });

  it('clears registrar_uri with null, back to the termination host', async () => {
    const trunk = await createTrunk(t, { register: true, registrar_uri: 'registrar.example-carrier.com' });
    expect(await patch(trunk.id, { registrar_uri: null })).toMatchObject({ registrar_uri: null });
  });

  it('answers 422 for a registrar_uri that is no SIP URI and for read-only fields', async () => {
    const bad = await t.call('POST', '/api/v1/sip-trunks', {
      body: {
        name: 'x',
        provider: 'generic',
        termination_uri: 'sip:a.example.com',
        auth_username: 'u',
        auth_password: 'p',
        transport: 'udp',
        register: true,
        registrar_uri: 'http://registrar.example.com',
      },
    });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys((bad.data as Errors).errors)).toEqual(['registrar_uri']);
    const trunk = await createTrunk(t);
    for (const body of [
      { registration_status: 'registered' },
      { health: 'up' },
      { register: 'yes' },
      { health_check: 1 },
    ]) {
      const res = await t.call('PATCH', `/api/v1/sip-trunks/${trunk.id}`, { body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
    }
  });
});
