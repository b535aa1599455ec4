import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseWavHeader, WAV_HEADER_BYTES } from './wav.js';
import { CallRecorder } from './call-recorder.js';
import { LocalRecordingStorage, type RecordingFile } from './recording-storage.js';
import { recoverRecordings } from './recovery.js';

const frame = (value: number, n = 320) => new Int16Array(n).fill(value);

function samples(wav: Buffer): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = WAV_HEADER_BYTES; i + 3 < wav.length; i += 4)
    out.push([wav.readInt16LE(i), wav.readInt16LE(i + 2)]);
  return out;
}

describe('CallRecorder', () => {
  let dir: string;
  let storage: LocalRecordingStorage;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rec-'));
    storage = new LocalRecordingStorage(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes the far party left and the service right, aligned, with an exact header', async () => {
    const rec = new CallRecorder(await storage.create('call1'));
    for (let i = 0; i < 50; i++) {
      rec.far(frame(1000));
      rec.service(frame(-2000));
    }
    await rec.close();
    const wav = await readFile(path.join(dir, 'call1.wav'));
    const h = parseWavHeader(wav)!;
    expect(h).toMatchObject({ channels: 2, sampleRate: 16000, dataBytes: 50 * 320 * 4 });
    expect(h.riffSize).toBe(wav.length - 8);
    const s = samples(wav);
    expect(s).toHaveLength(16000);
    expect(s.every(([l, r]) => l === 1000 && r === -2000)).toBe(true);
  });

  it('writes one side against silence when the other stops, keeping memory bounded', async () => {
    const rec = new CallRecorder(await storage.create('call2'), { maxLagMs: 100, maxPendingBytes: 1 << 24 });
    let most = 0;
    for (let i = 0; i < 500; i++) {
      rec.far(frame(500)); // the service side never sends (a paused sender)
      most = Math.max(most, rec.queuedSamples);
    }
    expect(most).toBeLessThanOrEqual(1600 + 320); // 100 ms and a frame
    rec.service(frame(-7)); // and then comes back
    rec.far(frame(9));
    await rec.close();
    const s = samples(await readFile(path.join(dir, 'call2.wav')));
    expect(s).toHaveLength(501 * 320);
    expect(s[0]).toEqual([500, 0]);
    expect(s.at(-1)).toEqual([9, -7]);
    expect(rec.stats.paddedSamples).toBe(500 * 320);
  });

  it('drops audio rather than buffer without end when the disk falls behind', async () => {
    const stuck: RecordingFile = {
      append: () => new Promise(() => undefined), // never completes
      writeAt: async () => undefined,
      close: async () => undefined,
    };
    const rec = new CallRecorder(stuck, { maxPendingBytes: 32 * 1024 });
    for (let i = 0; i < 3000; i++) {
      rec.far(frame(1));
      rec.service(frame(2));
    }
    expect(rec.heldBytes).toBeLessThanOrEqual(32 * 1024 + 2 * 320 * 2);
    expect(rec.stats.droppedBytes).toBeGreaterThan(0);
  });

  it('a failing disk ends the recording, once, with the reason, and never throws at the caller', async () => {
    const reasons: string[] = [];
    const full: RecordingFile = {
      append: async () => {
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      },
      writeAt: async () => undefined,
      close: async () => undefined,
    };
    const rec = new CallRecorder(full, { onFailure: (r) => reasons.push(r) });
    rec.far(frame(1));
    rec.service(frame(1));
    await new Promise((r) => setImmediate(r));
    rec.far(frame(1));
    rec.service(frame(1));
    await rec.close();
    expect(reasons).toEqual(['ENOSPC: no space left on device']);
    expect(rec.failure).toMatch(/ENOSPC/);
  });

  it('keeps the header near the data while writing, so a killed writer leaves a playable file', async () => {
    // An in-memory file: what is on "disk" at any moment, with no close() ever coming.
    let disk = Buffer.alloc(0);
    const file: RecordingFile = {
      append: async (b) => {
        disk = Buffer.concat([disk, b]);
      },
      writeAt: async (offset, b) => {
        b.copy(disk, offset);
      },
      close: async () => undefined,
    };
    const rec = new CallRecorder(file, { headerEveryMs: 200 });
    let worst = 0;
    for (let i = 0; i < 100; i++) {
      rec.far(frame(3));
      rec.service(frame(4));
      for (let k = 0; k < 5; k++) await Promise.resolve(); // the writes in flight land
      const h = parseWavHeader(disk)!;
      worst = Math.max(worst, disk.length - WAV_HEADER_BYTES - h.dataBytes);
    }
    // The process "dies" here: the header lags the data by at most headerEveryMs and a frame.
    expect(parseWavHeader(disk)!.dataBytes).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual((200 * 16 + 320) * 4);
  });
});

describe('recoverRecordings', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'rec-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('finishes the header of a recording cut off mid-write, dropping a half frame', async () => {
    const storage = new LocalRecordingStorage(dir);
    const rec = new CallRecorder(await storage.create('crashed'));
    for (let i = 0; i < 10; i++) {
      rec.far(frame(11));
      rec.service(frame(22));
    }
    await rec.close();
    const file = path.join(dir, 'crashed.wav');
    // As a crash leaves it: the header says nothing was written, and the last frame is cut.
    const wav = await readFile(file);
    wav.writeUInt32LE(36, 4);
    wav.writeUInt32LE(0, 40);
    await writeFile(file, wav);
    await truncate(file, wav.length - 3);
    await writeFile(path.join(dir, 'junk.wav'), 'not a wav');

    const report = await recoverRecordings(storage);
    expect(report).toEqual({ checked: 2, repaired: ['crashed'], unreadable: ['junk'] });
    const fixed = await readFile(file);
    const h = parseWavHeader(fixed)!;
    expect(h.dataBytes).toBe(10 * 320 * 4 - 4);
    expect(fixed.length).toBe(WAV_HEADER_BYTES + h.dataBytes);
    expect(samples(fixed).every(([l, r]) => l === 11 && r === 22)).toBe(true);
    // A second pass finds nothing to do.
    expect((await recoverRecordings(storage)).repaired).toEqual([]);
  });

  it('the storage refuses keys that could name a file outside its folder', async () => {
    const storage = new LocalRecordingStorage(dir);
    await expect(storage.create('../x')).rejects.toThrow(/not a recording key/);
    expect(() => storage.read('a/b')).toThrow(/not a recording key/);
  });
});
