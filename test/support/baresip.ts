// Running Debian's baresip as a test peer: a headless config directory (ausine as its microphone;
// the sndfile module writing each call's decoded audio, what baresip heard, to a WAV), and reading
// that WAV back to measure a tone in it. Its TLS certificate comes from tls-cert.ts.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeUdpPort, run, until } from './media-harness.js';
import { selfSigned, type TestCertificate } from './tls-cert.js';

export interface BaresipSetup {
  sipPort: number;
  /** The CA baresip trusts (our certificate). */
  caPath: string;
  /** baresip's own certificate and key: it then listens for TLS on sipPort + 1. */
  certificate?: string;
  /** The tone baresip sends, Hz. */
  toneHz: number;
  /** The account line, e.g. `<sip:baresip@127.0.0.1;transport=tls>;mediaenc=srtp-mand`. */
  account: string;
  modules: readonly string[];
}

/** Writes `config` and `accounts`; what baresip hears is recorded in `dir` (recordedWav). */
export function writeBaresipConfig(dir: string, s: BaresipSetup): void {
  const lines = [
    'poll_method epoll',
    `sip_listen 127.0.0.1:${s.sipPort}`,
    `sip_cafile ${s.caPath}`,
    ...(s.certificate ? [`sip_certificate ${s.certificate}`] : []),
    'call_local_timeout 120',
    `audio_source ausine,${s.toneHz}`,
    // ausine runs at 48 kHz only: baresip resamples to and from the codec's rate.
    'ausrc_srate 48000',
    'ausrc_channels 2',
    'auplay_srate 48000',
    // baresip 1.0's aufile has no player: this one fails quietly, and decoding still runs.
    `audio_player aufile,${join(dir, 'heard.wav')}`,
    `audio_alert aufile,${join(dir, 'alert.wav')}`,
    // sndfile writes every call's decoded audio (what baresip heard) and what it encoded.
    `snd_path ${dir}`,
    'rtp_stats yes',
    'module_path /usr/lib/baresip/modules',
    ...s.modules.map((m) => `module ${m}`),
    'module sndfile.so',
    'module_tmp account.so',
    'module_app menu.so',
  ];
  writeFileSync(join(dir, 'config'), lines.join('\n') + '\n');
  writeFileSync(join(dir, 'accounts'), s.account + '\n');
}

/** baresip running on the config in `dir`, its output kept. */
export interface RunningBaresip {
  process: ReturnType<typeof run>;
  output: { text: string };
  /** Resolves once `cond` holds; rejects as soon as baresip ends first. */
  wait(cond: () => boolean): Promise<void>;
  /** Ends baresip and measures `hz` in what it recorded of its call (toneShare). */
  heardTone(hz: number): Promise<{ share: number; loudMs: number }>;
}

/** Runs baresip on the config writeBaresipConfig wrote in `dir`, with `args` after it. */
export function runBaresip(dir: string, args: readonly string[] = []): RunningBaresip {
  const output = { text: '' };
  const process = run('baresip', ['-v', '-f', dir, ...args], { onOutput: (s) => (output.text += s) });
  const ended = process.done.then((r) => {
    throw new Error(`baresip ended early (${r.code}): ${r.out.slice(-3000)}`);
  });
  ended.catch(() => undefined);
  return {
    process,
    output,
    wait: (cond) => Promise.race([until(cond), ended]),
    async heardTone(hz) {
      process.kill();
      await process.done;
      const wav = recordedWav(dir);
      return toneShare(wav.samples, wav.rate, hz);
    },
  };
}

/**
 * baresip ready for calls (its codecs loaded; with a certificate it then listens for TLS on the
 * port above its sip_listen one).
 */
export async function startBaresip(dir: string): Promise<RunningBaresip> {
  const baresip = runBaresip(dir);
  await baresip.wait(() => /Populated \d+ audio codec/.test(baresip.output.text));
  return baresip;
}

/**
 * baresip answering calls to `user` at 127.0.0.1:sipPort (UDP), ready, sending a `toneHz` sine;
 * with `tls`, over TLS on sipPort + 1 with SRTP mandatory. Its certificate, made in `dir`, is
 * also the CA it trusts.
 */
export async function startBaresipCallee(
  dir: string,
  o: { user: string; toneHz: number; tls?: boolean },
): Promise<{ baresip: RunningBaresip; sipPort: number; cert: TestCertificate }> {
  const cert = selfSigned(dir);
  const sipPort = await freeUdpPort();
  const [transport, mediaenc] = o.tls ? [';transport=tls', 'mediaenc=srtp-mand;'] : ['', ''];
  writeBaresipConfig(dir, {
    sipPort,
    caPath: cert.certPath,
    ...(o.tls ? { certificate: cert.bundlePath } : {}),
    toneHz: o.toneHz,
    account: `<sip:${o.user}@127.0.0.1${transport}>;regint=0;${mediaenc}audio_codecs=PCMU;answermode=auto;medianat=;mwi=no`,
    modules: ['g711.so', 'ausine.so', 'aufile.so', ...(o.tls ? ['srtp.so'] : [])],
  });
  return { baresip: await startBaresip(dir), sipPort, cert };
}

/** The WAV sndfile wrote of what baresip decoded in its (one) call. */
export function recordedWav(dir: string): { rate: number; samples: Int16Array } {
  const name = readdirSync(dir).find((f) => f.startsWith('dump-') && f.endsWith('-dec.wav'));
  if (!name) throw new Error(`baresip recorded nothing in ${dir}`);
  return readWav(join(dir, name));
}

/** A 16-bit PCM WAV's rate and samples (first channel). */
export function readWav(path: string): { rate: number; samples: Int16Array } {
  const buf = readFileSync(path);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${path} is not a WAV file`);
  }
  let at = 12;
  let rate = 0;
  let channels = 1;
  while (at + 8 <= buf.length) {
    const id = buf.toString('ascii', at, at + 4);
    // aufile leaves the data size 0 when it is stopped by a signal: read to the end then.
    const declared = buf.readUInt32LE(at + 4);
    const size = id === 'data' && declared === 0 ? buf.length - at - 8 : declared;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(at + 10);
      rate = buf.readUInt32LE(at + 12);
    } else if (id === 'data') {
      const frames = Math.floor(Math.min(size, buf.length - at - 8) / (2 * channels));
      const samples = new Int16Array(frames);
      for (let i = 0; i < frames; i++) samples[i] = buf.readInt16LE(at + 8 + i * 2 * channels);
      return { rate, samples };
    }
    at += 8 + size + (size % 2);
  }
  throw new Error(`${path} has no data chunk`);
}

/**
 * The share of the signal's power at `hz` (Goertzel over 20 ms blocks, summed over blocks
 * louder than `floor`), 0..1: a clean tone at that frequency is near 1, silence or noise near 0.
 */
export function toneShare(
  samples: Int16Array,
  rate: number,
  hz: number,
  floor = 300,
): { share: number; loudMs: number } {
  const n = Math.round(rate / 50);
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / rate);
  let tone = 0;
  let total = 0;
  let loud = 0;
  for (let start = 0; start + n <= samples.length; start += n) {
    let energy = 0;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < n; i++) {
      const x = samples[start + i];
      energy += x * x;
      const s0 = x + coeff * s1 - s2;
      s2 = s1;
      s1 = s0;
    }
    if (Math.sqrt(energy / n) < floor) continue;
    loud++;
    // |X(hz)|^2 scaled to the block's energy: a pure tone gives power = energy * n / 2.
    tone += (s1 * s1 + s2 * s2 - coeff * s1 * s2) / (n / 2);
    total += energy;
  }
  return { share: total === 0 ? 0 : tone / total, loudMs: loud * 20 };
}
