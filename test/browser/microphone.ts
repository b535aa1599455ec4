// What Chromium's fake microphone plays in the browser journeys: WAV files it loops (speech made
// by espeak-ng, optionally padded with silence, or a pure tone), the flags that give a page that
// microphone without a prompt, and a page script that forces every peer connection through TURN.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { wavHeader } from '../../src/modules/recordings/wav.js';

export interface Speech {
  /** 16-bit little-endian mono samples. */
  pcm: Buffer;
  rate: number;
}

/** espeak-ng saying `text`. */
export function espeak(text: string): Speech {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-say-')), 'say.wav');
  const r = spawnSync('espeak-ng', ['-w', file, text]);
  if (r.status !== 0) throw new Error(`espeak-ng failed: ${r.stderr}`);
  const wav = fs.readFileSync(file);
  return { pcm: wav.subarray(wav.indexOf('data') + 8), rate: wav.readUInt32LE(24) };
}

export const durationMs = (s: Speech): number => (s.pcm.length / 2 / s.rate) * 1000;

/** A mono WAV file of `speech` with `padMs` of silence before and after; its path. */
export function micWav({ pcm, rate }: Speech, padMs = 0): string {
  const pad = Buffer.alloc(Math.round((rate * padMs) / 1000) * 2);
  const body = Buffer.concat([pad, pcm, pad]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sb-mic-')), 'mic.wav');
  fs.writeFileSync(file, Buffer.concat([wavHeader({ sampleRate: rate, channels: 1 }, body.length), body]));
  return file;
}

/** A pure `hz` tone of `seconds` at 48 kHz (Chromium loops it). */
export function toneSpeech(hz: number, seconds: number): Speech {
  const rate = 48000;
  const pcm = Buffer.alloc(rate * seconds * 2);
  for (let i = 0; i < rate * seconds; i++) {
    pcm.writeInt16LE(Math.round(10000 * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  }
  return { pcm, rate };
}

/** Chromium flags: a fake microphone (playing `wav` when given) granted without a prompt. */
export function fakeMicrophoneFlags(wav?: string): string[] {
  return [
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    ...(wav ? [`--use-file-for-fake-audio-capture=${wav}`] : []),
    '--allow-loopback-in-peer-connection',
    '--autoplay-policy=no-user-gesture-required',
  ];
}

/**
 * Every peer connection the page makes is relay-only (as a browser policy would force) and kept
 * in `window.__sbPeers` for getStats(); added by the DevTools protocol, which the page's CSP does
 * not govern.
 */
export async function forceRelayOnly(page: Page): Promise<void> {
  await page.addInitScript({
    content: `{
      const Original = window.RTCPeerConnection;
      const peers = (window.__sbPeers = []);
      window.RTCPeerConnection = class extends Original {
        constructor(config) {
          super({ ...(config ?? {}), iceTransportPolicy: 'relay' });
          peers.push(this);
        }
      };
    }`,
  });
}

/**
 * Records, for every `node` and `assistant_interrupted` frame the page's realtime socket receives
 * (a barge-in cuts a prompt short, which is not a loss), the audio packets the
 * page's peer connections had received by then (getStats() inbound-rtp, read as the frame
 * arrives): `window.__sbNodeAudio`, read back with nodeAudio(). What a prompt delivered to the
 * browser is then the count at the next node's frame, when nothing else spoke in between. Wraps
 * whatever RTCPeerConnection is in place (forceRelayOnly's, when added before it).
 */
export async function watchNodeAudio(page: Page): Promise<void> {
  await page.addInitScript({
    content: `{
      const OriginalPc = window.RTCPeerConnection;
      const peers = [];
      window.RTCPeerConnection = class extends OriginalPc {
        constructor(config) {
          super(config);
          peers.push(this);
        }
      };
      const marks = (window.__sbNodeAudio = []);
      const OriginalWs = window.WebSocket;
      window.WebSocket = class extends OriginalWs {
        constructor(...args) {
          super(...args);
          this.addEventListener('message', (e) => {
            let frame;
            try { frame = JSON.parse(e.data); } catch { return; }
            if (frame?.type !== 'node' && frame?.type !== 'assistant_interrupted') return;
            const mark = { type: frame.type, node: frame.node_id, event: frame.event, packets: null };
            marks.push(mark);
            (async () => {
              let packets = 0;
              for (const pc of peers)
                for (const r of (await pc.getStats()).values())
                  if (r.type === 'inbound-rtp' && r.kind === 'audio') packets += r.packetsReceived ?? 0;
              mark.packets = packets;
            })();
          });
        }
      };
    }`,
  });
}

export interface NodeAudioMark {
  type: 'node' | 'assistant_interrupted';
  /** Of a node frame. */
  node?: string;
  event?: 'entered' | 'exited';
  /** Inbound audio packets when the frame arrived (null while getStats() is still answering). */
  packets: number | null;
}

/** What watchNodeAudio recorded so far. */
export async function nodeAudio(page: Page): Promise<NodeAudioMark[]> {
  return (await page.evaluate('window.__sbNodeAudio ?? []')) as NodeAudioMark[];
}
