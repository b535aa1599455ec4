// A bare media host for the interop and transfer e2e tests: SipStack + UasLeg answering each INVITE with our SDP
// answer (telephony/sip/sdp) over a bound RtpSession (telephony/media). No call control: the
// tests drive the call through the returned objects and look at what both sides saw.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../src/shared/clock.js';
import { createCodec } from '../../src/audio/codecs/registry.js';
import type { DigitEnd, DigitEvent } from '../../src/telephony/media/dtmf.js';
import { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import type { RtpPacket } from '../../src/telephony/media/rtp-packet.js';
import type { MediaReceiver } from '../../src/telephony/media/rtp-receiver.js';
import { RtpSession, type SessionCounters } from '../../src/telephony/media/rtp-session.js';
import type { SipRequest } from '../../src/telephony/sip/message/types.js';
import { answerOffer } from '../../src/telephony/sip/sdp/answer.js';
import type { CodecName, NegotiatedAudio } from '../../src/telephony/sip/sdp/index.js';
import type { SipStackOptions } from '../../src/telephony/sip/stack.js';
import { SipStack } from '../../src/telephony/sip/stack.js';
import type { Source } from '../../src/telephony/sip/transport/routing.js';
import { UasLeg } from '../../src/telephony/sip/uas-leg.js';
import { sdesKeys } from '../../src/telephony/calls/call-media/call-media-setup.js';
import { pickPort } from './ports.js';

export const have = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;

export function run(
  cmd: string,
  args: string[],
  options: { cwd?: string; onOutput?: (chunk: string) => void } = {},
): { done: Promise<{ code: number | null; out: string }>; kill: () => void } {
  const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd });
  let out = '';
  const take = (d: Buffer) => {
    const s = d.toString();
    out = (out + s).slice(-200_000);
    options.onOutput?.(s);
  };
  p.stdout.on('data', take);
  p.stderr.on('data', take);
  const done = new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
  return { done, kill: () => p.kill('SIGTERM') };
}

/** A UDP port nobody held a moment ago (peers like sipp take a port number, not 0). */
export function freeUdpPort(): Promise<number> {
  return pickPort(['udp']);
}

/** Resolves once `cond` holds, checking every 20 ms; the test's own timeout is the only bound. */
export async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}

/** Resolves once `count()` has stopped changing for `quietMs` (and is above zero). */
export async function settled(count: () => number, quietMs: number): Promise<number> {
  let last = -1;
  let since = performance.now();
  for (;;) {
    const n = count();
    if (n !== last) {
      last = n;
      since = performance.now();
    } else if (n > 0 && performance.now() - since >= quietMs) return n;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface MediaCall {
  readonly leg: UasLeg;
  readonly invite: SipRequest;
  /** Where the INVITE's packet came from. */
  readonly source: Source;
  readonly session: RtpSession;
  readonly negotiated: NegotiatedAudio;
  /** Valid RTP packets our session accepted, by SSRC. */
  readonly packetsBySsrc: Map<number, number>;
  /** Audio frames the session decoded and played out (onAudio), concealed ones apart; the loudest sample. */
  readonly frames: { decoded: number; concealed: number; peak: number };
  /** The first 20 s of decoded audio (16 kHz), frame by frame. */
  readonly heard: Int16Array[];
  readonly digits: DigitEvent[];
  readonly digitEnds: DigitEnd[];
  readonly errors: Error[];
  byeReceived: boolean;
  /** The session's counters when the far end's BYE arrived (the session is closed then). */
  countersAtBye?: SessionCounters;
}

export interface MediaHostOptions {
  readonly codecs: readonly CodecName[];
  readonly tls?: SipStackOptions['tls'];
  /** Answer RTP/SAVP (SDES keys) on calls that came in over TLS, as the call controller does. */
  readonly srtp?: boolean;
  /** Called once a call is answered and its media runs. */
  readonly onCall?: (call: MediaCall) => void;
}

export class MediaHost {
  readonly calls: MediaCall[] = [];
  readonly stack: SipStack;
  // A range of our own per run, so parallel test files rarely collide (bind retries when they do).
  private readonly ports = ((base) => new RtpPortAllocator(base, base + 3999))(
    20000 + 2 * Math.floor(Math.random() * 10000),
  );
  private port = 0;
  private seq = 0;
  private readonly pending: Promise<void>[] = [];

  constructor(private readonly options: MediaHostOptions) {
    this.stack = new SipStack({
      clock: systemClock,
      host: '127.0.0.1',
      port: 0,
      ...(options.tls ? { tls: options.tls } : {}),
      onRequest: (req, tx, source) => {
        if (req.method !== 'INVITE') return false;
        const leg = new UasLeg(
          {
            stack: this.stack,
            clock: systemClock,
            contact: this.contact(source),
            newId: () => `${randomBytes(4).toString('hex')}${++this.seq}`,
            localHost: '127.0.0.1',
            localPort: source.transport === 'TLS' ? this.tlsPort : this.port,
          },
          req,
          tx,
          {
            cancelled: () => undefined,
            bye: () => {
              const call = this.calls.find((c) => c.leg === leg);
              if (!call) return;
              call.byeReceived = true;
              call.countersAtBye = { ...call.session.counters };
              void call.session.close();
            },
            ackTimeout: () => leg.bye(),
          },
        );
        this.pending.push(this.answer(leg, req, source));
        return true;
      },
    });
  }

  tlsPort = 0;

  async listen(): Promise<{ udp?: number; tcp?: number; tls?: number }> {
    const ports = await this.stack.listen();
    this.port = ports.udp ?? 0;
    this.tlsPort = ports.tls ?? 0;
    return ports;
  }

  private contact(source: Source): string {
    return source.transport === 'TLS'
      ? `<sip:sb@127.0.0.1:${this.tlsPort};transport=tls>`
      : source.transport === 'TCP'
        ? `<sip:sb@127.0.0.1:${this.port};transport=tcp>`
        : `<sip:sb@127.0.0.1:${this.port}>`;
  }

  private async answer(leg: UasLeg, invite: SipRequest, source: Source): Promise<void> {
    const offer = new TextDecoder().decode(invite.body);
    const keys = this.options.srtp && source.transport === 'TLS' ? { srtp: { keys: sdesKeys() } } : {};
    // The port is not known before binding: negotiate once to pick the codec, bind, then answer.
    const probe = answerOffer(
      offer,
      { address: '127.0.0.1', port: 9, codecs: this.options.codecs, ...keys },
      { sessionId: '1', sessionVersion: 1, address: '127.0.0.1' },
    );
    if (!probe.ok) return leg.reject(probe.status, probe.reason);
    const n = probe.audio;
    const codec = createCodec(n.codec.name, n.codec.pt);
    if (!codec) return leg.reject(488, 'Not Acceptable Here');
    const packetsBySsrc = new Map<number, number>();
    const frames = { decoded: 0, concealed: 0, peak: 0 };
    const heard: Int16Array[] = [];
    const digits: DigitEvent[] = [];
    const digitEnds: DigitEnd[] = [];
    const errors: Error[] = [];
    const session = new RtpSession({
      clock: systemClock,
      ports: this.ports,
      host: '127.0.0.1',
      codec,
      payloadType: n.codec.pt,
      ...(n.telephoneEvent ? { telephoneEventPayloadType: n.telephoneEvent.pt } : {}),
      remote: { address: n.remoteAddress, port: n.remotePort },
      ...(n.srtp ? { srtp: n.srtp } : {}),
      onAudio: (pcm, info) => {
        if (info.concealed) return void frames.concealed++;
        frames.decoded++;
        if (heard.length < 1000) heard.push(pcm.slice());
        for (const v of pcm) if (Math.abs(v) > frames.peak) frames.peak = Math.abs(v);
      },
      onDigit: (d) => digits.push(d),
      onDigitEnd: (d) => digitEnds.push(d),
      onError: (e) => errors.push(e),
    });
    // Count what the session accepted per source, so echoed packets (our SSRC) are told apart.
    // An in-process session (no workers): its receiver is the MediaReceiver.
    const receiver = session.receiver as MediaReceiver;
    const handle = receiver.handle.bind(receiver);
    receiver.handle = (p: RtpPacket, at: number) => {
      packetsBySsrc.set(p.ssrc, (packetsBySsrc.get(p.ssrc) ?? 0) + 1);
      handle(p, at);
    };
    const port = await session.bind();
    const answer = answerOffer(
      offer,
      { address: '127.0.0.1', port, codecs: this.options.codecs, ...keys },
      { sessionId: String(Date.now()), sessionVersion: 1, address: '127.0.0.1' },
    );
    if (!answer.ok) {
      await session.close();
      return leg.reject(answer.status, answer.reason);
    }
    const call: MediaCall = {
      leg,
      invite,
      source,
      session,
      negotiated: answer.audio,
      packetsBySsrc,
      frames,
      heard,
      digits,
      digitEnds,
      errors,
      byeReceived: false,
    };
    this.calls.push(call);
    leg.answer(answer.sdp);
    session.start();
    this.options.onCall?.(call);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.pending);
    await Promise.all(this.calls.map((c) => c.session.close()));
    await this.stack.close();
  }
}
