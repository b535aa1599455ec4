// Outbound calls through a carrier_a trunk (modules/sip-trunks/carrier-profile.ts): the INVITE's
// request URI is the dialled number in E.164 at the trunk's termination host (an edge location
// kept), the caller ID also goes out as P-Asserted-Identity, only G.711 is offered, and INVITEs to
// one carrier host leave at most 30 a second, evenly spaced on the injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dialer } from '../../../modules/calls/dialer.js';
import { startTestApi, type TestApi } from '../../../../test/support/api.js';
import { callRow, callWorld, type CallWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import { ScriptedLeg } from '../../../../test/support/scripted-leg.js';
import { SipDialer } from './sip-dialer.js';

describe.each(storeKinds())('outbound calls through a carrier_a trunk on $name', (kind) => {
  let t: TestApi;
  let w: CallWorld;
  let dialer: SipDialer;
  const legs: ScriptedLeg[] = [];

  beforeAll(async () => {
    const late: Dialer = {
      get nodeId() {
        return dialer.nodeId;
      },
      dial: (c) => dialer.dial(c),
      cancel: (id) => dialer.cancel(id),
    };
    t = await startTestApi(kind, { overrides: { dialer: late } });
    w = await callWorld(t, '+14155550123');
    await t.store.db
      .updateTable('sip_trunks')
      .set({ provider: 'carrier_a', termination_uri: 'sip:acme.pstn.ashburn.twilio.com' })
      .where('id', '=', w.trunkId)
      .execute();
    dialer = new SipDialer(t.deps, () => {
      const leg = new ScriptedLeg();
      legs.push(leg);
      return leg;
    });
  });
  afterAll(() => t.close());

  async function post(to: string): Promise<string> {
    const res = await t.call('POST', '/api/v1/calls', {
      body: { project_id: w.projectId, workflow_id: w.workflowId, from: w.number, to },
    });
    expect(res.statusCode, res.body).toBe(201);
    return (res.data as { data: { id: string } }).data.id;
  }

  let sentNow = () => 0;
  /** Waits (in real time, the fake clock standing still) until `done` holds. */
  async function until(done: () => boolean | Promise<boolean>): Promise<void> {
    for (let i = 0; i < 2000 && !(await done()); i++) await new Promise((r) => setTimeout(r, 5));
    expect(await done(), `${sentNow()} sent, ${dialer.pacing} pacing`).toBe(true);
  }

  it('INVITE: +E164 at the termination host, P-Asserted-Identity with the caller ID, G.711 only', async () => {
    const id = await post('+14155550999');
    await dialer.find(id)!.idle();
    const leg = legs[legs.length - 1]!;
    expect(leg.target).toEqual({
      uri: 'sip:+14155550999@acme.pstn.ashburn.twilio.com',
      host: 'acme.pstn.ashburn.twilio.com',
      port: null,
      transport: 'udp',
    });
    expect(leg.options?.from).toBe('+14155550123');
    expect(leg.options?.carrier).toEqual({
      codecs: ['PCMU', 'PCMA'],
      headers: [['P-Asserted-Identity', `<sip:+14155550123@${t.deps.config.sip.domain}>`]],
    });
    expect(dialer.find(id)!.cancel()).toBe(true);
    await dialer.find(id)?.idle();
  });

  it('paces INVITEs to one carrier host at 30 a second, evenly spaced; a cancelled wait sends nothing', async () => {
    // The previous test's INVITE took this host's slot at the current instant.
    t.clock.advance(1_000);
    const before = legs.length;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await post(`+1415555100${i}`));
    const sent = () => legs.slice(before).filter((l) => l.target !== undefined).length;
    sentNow = sent;
    // The first leaves at once, the other three wait their turn: one every 1000/30 ms.
    await until(() => sent() === 1 && dialer.pacing === 3);
    t.clock.advance(33);
    await until(() => dialer.pacing === 3);
    expect(sent()).toBe(1);
    t.clock.advance(1);
    await until(() => sent() === 2);
    expect(dialer.pacing).toBe(2);
    // The third is cancelled while it waits: no INVITE, no CANCEL, the call ends cancelled.
    const third = dialer.find(ids[2]!)!;
    expect(third.cancel()).toBe(true);
    // Its ending is written once its wait is over (writes keep their order), with nothing sent.
    t.clock.advance(34);
    await until(async () => dialer.pacing === 1 && (await callRow(t, ids[2]!)).status === 'cancelled');
    expect(sent()).toBe(2);
    t.clock.advance(34);
    await until(() => sent() === 3);
    expect(legs.slice(before).every((l) => l.cancels === 0)).toBe(true);
    for (const id of [ids[0]!, ids[1]!, ids[3]!]) {
      const call = dialer.find(id);
      if (call?.cancel()) await call.idle();
    }
  });
});
