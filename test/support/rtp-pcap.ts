// Writes 16 kHz PCM as a pcap of PCMA RTP packets (20 ms each, Ethernet/IPv4/UDP framing), the
// file sipp's play_pcap_audio plays into a call: so an e2e test can make a caller say words that
// espeak-ng spoke, over real RTP.
import { writeFileSync } from 'node:fs';
import { encodeG711Into } from '../../src/audio/codecs/g711.js';
import { Resampler } from '../../src/audio/resampler.js';

const SAMPLES = 160; // 20 ms at 8 kHz

function ipChecksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < header.length; i += 2) sum += header.readUInt16BE(i);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

/** `pcm16k` as PCMA RTP packets (payload type 8) in a pcap file at `file`. */
export function writePcmaPcap(pcm16k: Int16Array, file: string, ssrc = 0x5eed5eed): void {
  const down = new Resampler(16000, 8000);
  const pcm8k = down.process(pcm16k);
  const parts: Buffer[] = [];
  const global = Buffer.alloc(24);
  global.writeUInt32LE(0xa1b2c3d4, 0);
  global.writeUInt16LE(2, 4);
  global.writeUInt16LE(4, 6);
  global.writeUInt32LE(65535, 16);
  global.writeUInt32LE(1, 20); // Ethernet
  parts.push(global);
  const packets = Math.floor(pcm8k.length / SAMPLES);
  for (let k = 0; k < packets; k++) {
    const frame = pcm8k.subarray(k * SAMPLES, (k + 1) * SAMPLES);
    const rtp = Buffer.alloc(12 + SAMPLES);
    rtp[0] = 0x80;
    rtp[1] = 8 | (k === 0 ? 0x80 : 0);
    rtp.writeUInt16BE(k & 0xffff, 2);
    rtp.writeUInt32BE(k * SAMPLES, 4);
    rtp.writeUInt32BE(ssrc, 8);
    encodeG711Into('alaw', frame, rtp.subarray(12));
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(6000, 0);
    udp.writeUInt16BE(6002, 2);
    udp.writeUInt16BE(8 + rtp.length, 4);
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip.writeUInt16BE(20 + 8 + rtp.length, 2);
    ip[8] = 64;
    ip[9] = 17;
    // Loopback in the file too (sipp sends the payloads to the call's media address, not these).
    ip.set([127, 0, 0, 1], 12);
    ip.set([127, 0, 0, 1], 16);
    ip.writeUInt16BE(ipChecksum(ip), 10);
    const eth = Buffer.alloc(14);
    eth.writeUInt16BE(0x0800, 12);
    const frameBytes = Buffer.concat([eth, ip, udp, rtp]);
    const rec = Buffer.alloc(16);
    const us = k * 20_000;
    rec.writeUInt32LE(Math.floor(us / 1e6), 0);
    rec.writeUInt32LE(us % 1e6, 4);
    rec.writeUInt32LE(frameBytes.length, 8);
    rec.writeUInt32LE(frameBytes.length, 12);
    parts.push(rec, frameBytes);
  }
  writeFileSync(file, Buffer.concat(parts));
}
