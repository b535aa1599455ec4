// Media hot-path micro-benchmark: RTP parse + serialize, G.711, the resampler, Opus and the jitter
// buffer, each printed with a ratio against a baseline measured in the same run (a Buffer.copy of
// the same bytes, the floor of any per-packet work), then the CPU one G.711 call costs both ways
// at the 16 kHz pipeline rate, and the calls per core that implies. SRTP (AES_CM_128_HMAC_SHA1_80
// and _32) is measured against plain RTP in the same run: what protecting and unprotecting a
// packet costs beside serializing and parsing it, and what that adds to a call.
//   npm run bench:media        (MEDIA_BENCH_MS=500 per case)
import { G711Codec, encodeG711Into } from '../src/audio/codecs/g711.js';
import { OpusCodec } from '../src/audio/codecs/opus.js';
import { PipelineCodec } from '../src/audio/codecs/pipeline-codec.js';
import { JitterBuffer } from '../src/telephony/media/jitter-buffer.js';
import { Resampler } from '../src/audio/resampler.js';
import {
  decodeRtp,
  RtpPacket,
  RtpStatus,
  serializeRtp,
  writeRtpHeader,
} from '../src/telephony/media/rtp-packet.js';
import { SrtpContext } from '../src/telephony/media/srtp/srtp-context.js';
import { SRTP_SUITES } from '../src/telephony/media/srtp/suites.js';

const CASE_MS = Number(process.env.MEDIA_BENCH_MS ?? 500);

/** Runs `fn` in batches until CASE_MS have passed; returns operations per second. */
function measure(fn: (i: number) => void, batch = 1000): number {
  for (let i = 0; i < batch * 5; i++) fn(i); // warm-up for the JIT
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < CASE_MS) {
    for (let i = 0; i < batch; i++) fn(ops + i);
    ops += batch;
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

function row(name: string, opsPerSec: number, baseline: number): void {
  const ns = 1e9 / opsPerSec;
  const ratio = baseline / opsPerSec;
  console.log(
    `${name.padEnd(44)} ${opsPerSec.toExponential(2).padStart(9)} op/s ${ns.toFixed(0).padStart(7)} ns/op ${ratio.toFixed(1).padStart(6)}x baseline`,
  );
}

const payload = Buffer.alloc(160, 0xd5);
const packet = Buffer.alloc(172);
writeRtpHeader(packet, 0, { payloadType: 0, sequenceNumber: 1, timestamp: 160, ssrc: 0xabc });
payload.copy(packet, 12);
const scratch = Buffer.alloc(1500);
let sink = 0;

// Baseline: copying a packet's bytes, which every real pipeline does at least once.
const copyOps = measure(() => {
  packet.copy(scratch, 0, 0, 172);
  sink += scratch[5];
});
console.log(`baseline: Buffer.copy of a 172-byte G.711 packet, ${(1e9 / copyOps).toFixed(0)} ns\n`);

const parsed = new RtpPacket();
row(
  'RTP parse (decodeRtp into a reused packet)',
  measure(() => {
    if (decodeRtp(packet, parsed) !== RtpStatus.Ok) throw new Error('bad');
    sink += parsed.sequenceNumber;
  }),
  copyOps,
);
const header = { payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0xabc, marker: false };
row(
  'RTP serialize (header + payload into scratch)',
  measure((i) => {
    header.sequenceNumber = i & 0xffff;
    header.timestamp = i * 160;
    const n = writeRtpHeader(scratch, 0, header);
    payload.copy(scratch, n);
    sink += scratch[3];
  }),
  copyOps,
);
row(
  'RTP parse + serialize',
  measure((i) => {
    decodeRtp(packet, parsed);
    header.sequenceNumber = (parsed.sequenceNumber + i) & 0xffff;
    const n = writeRtpHeader(scratch, 0, header);
    packet.copy(scratch, n, parsed.payloadOffset, parsed.payloadOffset + parsed.payloadLength);
    sink += scratch[3];
  }),
  copyOps,
);

const pcm8k = Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin(i / 3)));
const pcm16k = Int16Array.from({ length: 320 }, (_, i) => Math.round(8000 * Math.sin(i / 6)));
const codes = new Uint8Array(160);
const g711 = new G711Codec('ulaw');
row(
  'G.711 µ-law encode, 20 ms frame (into buffer)',
  measure(() => {
    encodeG711Into('ulaw', pcm8k, codes);
    sink += codes[7];
  }),
  copyOps,
);
const ulawFrame = g711.encode(pcm8k);
row(
  'G.711 µ-law decode, 20 ms frame',
  measure(() => {
    sink += g711.decode(ulawFrame)[3];
  }),
  copyOps,
);

const down = new Resampler(16000, 8000);
const up = new Resampler(8000, 16000);
row(
  `resample 16k -> 8k, 20 ms (${down.taps} taps)`,
  measure(() => (sink += down.process(pcm16k)[1]), 100),
  copyOps,
);
row(
  `resample 8k -> 16k, 20 ms (${up.taps} taps/phase)`,
  measure(() => (sink += up.process(pcm8k)[1]), 100),
  copyOps,
);
const up48 = new Resampler(16000, 48000);
const down48 = new Resampler(48000, 16000);
const pcm48k = up48.process(pcm16k);
row(
  `resample 16k -> 48k, 20 ms (${up48.taps} taps/phase)`,
  measure(() => (sink += up48.process(pcm16k)[1]), 100),
  copyOps,
);
row(
  `resample 48k -> 16k, 20 ms (${down48.taps} taps)`,
  measure(() => (sink += down48.process(pcm48k)[1]), 100),
  copyOps,
);

const opus = new OpusCodec();
const opusFrame = opus.encode(pcm48k);
row(
  'Opus encode, 20 ms at 48 kHz',
  measure(() => (sink += opus.encode(pcm48k).length), 50),
  copyOps,
);
row(
  'Opus decode, 20 ms at 48 kHz',
  measure(() => (sink += opus.decode(opusFrame)[5]), 50),
  copyOps,
);

const jb = new JitterBuffer({ clockRate: 8000 });
row(
  'jitter buffer push + pull, one packet',
  measure((i) => {
    jb.push(i & 0xffff, (i * 160) >>> 0, payload, false, i * 20);
    const out = jb.pull();
    if (out.kind === 'frame') sink += out.seq;
  }),
  copyOps,
);

// One G.711 call, both ways, 50 frames a second: send (16k -> 8k, encode, serialize) and receive
// (parse, jitter buffer, decode, 8k -> 16k).
const sendCodec = new PipelineCodec(new G711Codec('ulaw'));
const recvCodec = new PipelineCodec(new G711Codec('ulaw'));
const jb2 = new JitterBuffer({ clockRate: 8000 });
const frameOps = measure((i) => {
  const out = sendCodec.encode(pcm16k);
  header.sequenceNumber = i & 0xffff;
  const n = writeRtpHeader(scratch, 0, header);
  out.copy(scratch, n);
  decodeRtp(packet, parsed);
  jb2.push(i & 0xffff, (i * 160) >>> 0, parsed.payload(), false, i * 20);
  const got = jb2.pull();
  if (got.kind === 'frame') sink += recvCodec.decode(got.payload)[0];
}, 100);
const cpuPerCall = 50 / frameOps; // core-seconds per call-second
console.log(
  `\nG.711 call, both ways at the 16 kHz pipeline: ${(1e6 / frameOps).toFixed(1)} µs per 20 ms frame pair, ` +
    `${(cpuPerCall * 100).toFixed(2)}% of a core per call, about ${Math.floor(1 / cpuPerCall)} calls per core ` +
    `(media codec work only; sockets and timers not included)`,
);

// SRTP beside plain RTP: each way, what a packet costs with and without protection.
const plainRtpOps = measure((i) => {
  header.sequenceNumber = i & 0xffff;
  const out = serializeRtp(header, payload);
  decodeRtp(out, parsed);
  sink += parsed.payloadLength;
});
console.log(
  `\nplain RTP: serialize + parse a 172-byte G.711 packet, ${(1e9 / plainRtpOps).toFixed(0)} ns (the SRTP rows' baseline)`,
);
const masterKey = Buffer.alloc(16, 7);
const masterSalt = Buffer.alloc(14, 9);
for (const name of ['AES_CM_128_HMAC_SHA1_80', 'AES_CM_128_HMAC_SHA1_32'] as const) {
  const tx = new SrtpContext(SRTP_SUITES[name], masterKey, masterSalt);
  const rx = new SrtpContext(SRTP_SUITES[name], masterKey, masterSalt);
  // Its own sequence: measure() restarts its count after the warm-up, which would be replays.
  let seq = 0;
  const srtpOps = measure(() => {
    header.sequenceNumber = seq++ & 0xffff;
    const sent = tx.protectRtp(serializeRtp(header, payload));
    const plain = rx.unprotectRtp(sent);
    if (!plain) throw new Error('SRTP round trip failed');
    decodeRtp(plain, parsed);
    sink += parsed.payloadLength;
  });
  row(`SRTP ${name}: serialize, protect, unprotect, parse`, srtpOps, plainRtpOps);
  const extra = (1 / srtpOps - 1 / plainRtpOps) * 50; // core-seconds per call-second, both ways
  console.log(
    `  ${(plainRtpOps / srtpOps).toFixed(1)}x plain RTP; adds ${(extra * 100).toFixed(3)}% of a core to a call (50 packets a second each way)`,
  );
}
if (sink === 42) console.log('');
