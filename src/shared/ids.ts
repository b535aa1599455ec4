// Ids are UUID version 7: time-ordered, so "newest first" can also break ties by id, and
// monotonic within one process even when several are made in the same millisecond.
import { randomFillSync } from 'node:crypto';

export type IdGenerator = () => string;

let lastMs = 0;
let counter = 0;
// Random bytes are drawn 256 ids at a time: one call into the CSPRNG costs several times what
// formatting an id does. Each id takes its own 16 bytes; none is used twice.
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;

export function uuidv7(nowMs: number = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, (poolOffset += 16));
  if (nowMs <= lastMs) {
    nowMs = lastMs;
    counter = (counter + 1) & 0xfff;
    if (counter === 0) nowMs = ++lastMs;
  } else {
    counter = bytes.readUInt16BE(6) & 0x7ff;
  }
  lastMs = nowMs;
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const newId: IdGenerator = () => uuidv7();
