// Support for the transfer tests against real peers (test/e2e/transfer-warm.test.ts,
// transfer-handon.test.ts): sipp as a party that echoes our media back (-rtp_echo), and the
// caller's phone joined to our caller session on loopback as the call host has them.
import { systemClock } from '../../src/shared/clock.js';
import { G711Codec } from '../../src/telephony/media/codecs/g711.js';
import type { RtpPortAllocator } from '../../src/telephony/media/port-allocator.js';
import { RtpSession } from '../../src/telephony/media/rtp-session.js';
import { freeUdpPort, run } from '../interop/media-harness.js';

/** What a test file closes after each test, last first. */
export type Cleanup = Array<() => Promise<unknown>>;

/** sipp running `file` as one party on `port`, its media port echoing; killed at cleanup. */
export async function echoingSipp(file: string, port: number, timeout: string, cleanup: Cleanup) {
  const sipp = run('sipp', [
    '-sf',
    file,
    '-i',
    '127.0.0.1',
    '-p',
    String(port),
    '-mi',
    '127.0.0.1',
    '-mp',
    String(await freeUdpPort()),
    '-rtp_echo',
    '-t',
    'u1',
    '-m',
    '1',
    '-nostdin',
    '-timeout',
    timeout,
    '-timeout_error',
  ]);
  cleanup.push(async () => sipp.kill());
  return sipp;
}

/** The caller's phone (counting loud frames) and our caller session, joined on loopback. */
export async function joinedCaller(ports: RtpPortAllocator, cleanup: Cleanup) {
  let loud = 0;
  const phone = new RtpSession({
    clock: systemClock,
    ports,
    host: '127.0.0.1',
    codec: new G711Codec('ulaw'),
    onAudio: (pcm) => {
      if (Math.max(...pcm) > 3000) loud++;
    },
  });
  const rtp = new RtpSession({ clock: systemClock, ports, host: '127.0.0.1', codec: new G711Codec('ulaw') });
  cleanup.push(
    () => phone.close(),
    () => rtp.close(),
  );
  const pp = await phone.bind();
  const pr = await rtp.bind();
  phone.setRemote({ address: '127.0.0.1', port: pr });
  rtp.setRemote({ address: '127.0.0.1', port: pp });
  phone.start();
  rtp.start();
  return { phone, rtp, loud: () => loud };
}

export function tone(n: number, freq = 1000): Int16Array {
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / 16000)),
  );
}
