// SIP_CODECS reaches every SDP a call's legs build: our answer to a carrier's offer, our offer on an
// outbound call, and the offer of a warm transfer's (or dial node's) second leg, each in the order
// configured. The legs run on a SIP stack whose transports the test plays (test/support/fake-wire.ts),
// so the INVITEs they send are read straight from the wire.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApi } from '../../../../test/support/api.js';
import { callWorld } from '../../../../test/support/calls.js';
import { storeKinds } from '../../../../test/support/stores.js';
import type { ServiceDeps } from '../../../modules/context.js';
import { FakeClock } from '../../../shared/clock.js';
import { RtpPortAllocator } from '../../media/port-allocator.js';
import type { RtpSession } from '../../media/rtp-session.js';
import type { CallRecord as CallTable } from '../../../modules/calls/call-records.service.js';
import { answerOffer } from '../../sip/sdp/answer.js';
import { buildOffer } from '../../sip/sdp/offer.js';
import { wiredStack, type WiredStack } from '../../../../test/support/fake-wire.js';
import type { CodecName } from '../../sip/sdp/codecs.js';
import { bridgedLegCodecs, codecsOf, localAudio, offerCodec, type MediaEnv } from './call-media-setup.js';
import { MediaSipLeg } from '../outbound/media-sip-leg.js';
import { createTransferer } from '../transfer/transfer.js';
import type { TransferContext } from '../transfer/transfer-context.js';

const OFFER = [
  'v=0',
  'o=carrier 1 1 IN IP4 127.0.0.1',
  's=-',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=audio 40000 RTP/AVP 0 8 101',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:101 telephone-event/8000',
  '',
].join('\r\n');

const ORIGIN = { sessionId: '1', sessionVersion: 1, address: '127.0.0.1' };
const mLine = (sdp: string) => /m=audio \d+ RTP\/AVP ([\d ]+)/.exec(sdp)?.[1];
const bodyOf = (w: WiredStack, method: string) =>
  new TextDecoder().decode(w.requests(method)[0]?.message.body ?? new Uint8Array());

let portBase = 43000 + (process.pid % 40) * 50;
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function env(codecs?: readonly CodecName[]): MediaEnv {
  const clock = new FakeClock();
  const ports = new RtpPortAllocator(portBase, portBase + 19);
  portBase += 20;
  return { clock, ports, bindHost: '127.0.0.1', address: '127.0.0.1', ...(codecs ? { codecs } : {}) };
}

describe('codec preference (SIP_CODECS) in our SDP', () => {
  it('defaults to PCMU, PCMA, opus', () => {
    expect(codecsOf(env())).toEqual(['PCMU', 'PCMA', 'opus']);
    expect(offerCodec(env())).toEqual({ name: 'PCMU', pt: 0 });
    const answer = answerOffer(OFFER, localAudio(env(), 30000), ORIGIN);
    expect(answer.ok && mLine(answer.sdp)).toBe('0 8 101');
  });

  it('our answer picks PCMA first when configured PCMA,PCMU, though the offer lists PCMU first', () => {
    const answer = answerOffer(OFFER, localAudio(env(['PCMA', 'PCMU']), 30000), ORIGIN);
    if (!answer.ok) throw new Error(answer.why);
    expect(mLine(answer.sdp)).toBe('8 0 101');
    expect(answer.audio.codec).toMatchObject({ name: 'PCMA', pt: 8 });
    // PCMU alone: PCMA is never answered, even when offered.
    const only = answerOffer(OFFER, localAudio(env(['PCMU']), 30000), ORIGIN);
    expect(only.ok && mLine(only.sdp)).toBe('0 101');
    const pcmaOnly = OFFER.replace('RTP/AVP 0 8 101', 'RTP/AVP 8 101');
    expect(answerOffer(pcmaOnly, localAudio(env(['PCMU']), 30000), ORIGIN)).toMatchObject({
      ok: false,
      status: 488,
    });
  });

  it('our offer lists the preference in order (events at each rate), the first one to start with', () => {
    const e = env(['opus', 'PCMA']);
    expect(mLine(buildOffer(localAudio(e, 30000), ORIGIN))).toBe('111 8 110 101');
    expect(offerCodec(e)).toEqual({ name: 'opus', pt: 111 });
  });

  it('a bridged second leg offers the G.711 part in order, or the whole list when it has none', () => {
    expect(bridgedLegCodecs(['PCMU', 'PCMA', 'opus'])).toEqual(['PCMU', 'PCMA']);
    expect(bridgedLegCodecs(['opus', 'PCMA', 'PCMU'])).toEqual(['PCMA', 'PCMU']);
    expect(bridgedLegCodecs(['opus'])).toEqual(['opus']);
  });
});

describe('codec preference on the wire', () => {
  const target = { uri: 'sip:+14155550100@198.51.100.1', host: '198.51.100.1', port: 5060, transport: 'udp' };

  it("an outbound call's INVITE offers PCMA first when configured so, and the leg starts with PCMA", async () => {
    const wire = wiredStack();
    const e = env(['PCMA', 'PCMU']);
    const leg = new MediaSipLeg({
      stack: wire.stack,
      media: e,
      localHost: '192.0.2.1',
      localPort: 5060,
      newId,
    });
    closers.push(() => leg.bye());
    expect(leg.codec).toEqual({ name: 'PCMA', pt: 8 });
    const invited = new Promise<void>((resolve) => {
      leg.invite(
        target as never,
        { from: '+14155550199', auth: { username: 'u', password: 'p' }, callId: 'call-1' },
        {
          provisional: () => undefined,
          final: () => undefined,
          bye: () => undefined,
          transportError: () => undefined,
        },
      );
      const poll = () => (wire.requests('INVITE').length > 0 ? resolve() : setImmediate(poll));
      poll();
    });
    await invited;
    expect(mLine(bodyOf(wire, 'INVITE'))).toBe('8 0 101');
    leg.cancel();
  });

  it("a warm transfer's human leg (the transferer, as a node runs it) offers SIP_CODECS's G.711 order", async () => {
    const t = await startTestApi(storeKinds()[0]!);
    closers.push(() => t.close());
    const w = await callWorld(t, '+14155550170');
    const wire = wiredStack();
    const e = env();
    const signal = new AbortController();
    const config = { ...t.deps.config, sip: { ...t.deps.config.sip, codecs: ['opus', 'PCMA', 'PCMU'] } };
    // The leg is a call of its own, recorded in the parent's workspace and project.
    const call = {
      id: 'call-2',
      workspace_id: t.workspaceId,
      project_id: w.projectId,
      workflow_id: w.workflowId,
      workflow_version: 1,
      direction: 'inbound',
      from_number: '+4930123456',
      to_number: w.number,
      phone_number_id: w.numberId,
    } as CallTable;
    const result = createTransferer()(
      {
        deps: { ...t.deps, config } as ServiceDeps,
        call,
        stack: wire.stack,
        local: { host: '127.0.0.1', port: 5060 },
        ports: e.ports,
        rtp: {} as RtpSession,
        leg: {} as TransferContext['leg'],
        restoreRequests: () => undefined,
        callerGone: new AbortController().signal,
        suspendMedia: () => undefined,
        resumeMedia: () => undefined,
      },
      'tel:+15550123',
      { mode: 'warm', signal: signal.signal },
    ).catch((err: unknown) => err);
    while (wire.requests('INVITE').length === 0) await new Promise<void>((r) => setImmediate(r));
    expect(wire.requests('INVITE')[0]!.message.uri).toMatchObject({ user: '+15550123' });
    expect(mLine(bodyOf(wire, 'INVITE'))).toBe('8 0 101');
    signal.abort(new Error('test over'));
    await result;
  });
});

let ids = 0;
function newId(): string {
  return `id${++ids}`;
}
