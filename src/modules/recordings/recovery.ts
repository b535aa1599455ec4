// The start-up pass over the recordings on this node's storage: a recording whose writer died
// with the process (a crash, a kill, a power cut) has a header up to a second behind its data and
// may end in half a sample frame. Each such file gets the header its length calls for and loses
// the partial frame, so every recording that reached the disk plays to its last whole frame.
//
// It runs before the node takes calls, so no file it touches is being written.
import { fixedSizes, parseWavHeader, RIFF_SIZE_OFFSET, DATA_SIZE_OFFSET, WAV_HEADER_BYTES } from './wav.js';
import type { Logger } from '../../shared/logger.js';
import type { RecordingStorage } from './recording-storage.js';

export interface RecoveryReport {
  checked: number;
  repaired: string[];
  /** Files too short or not in our format: left as they are, and logged. */
  unreadable: string[];
}

export async function recoverRecordings(storage: RecordingStorage, logger?: Logger): Promise<RecoveryReport> {
  const report: RecoveryReport = { checked: 0, repaired: [], unreadable: [] };
  for (const key of await storage.list()) {
    const file = await storage.openForRepair(key);
    if (!file) continue;
    report.checked++;
    try {
      const header = parseWavHeader(await file.readAt(0, WAV_HEADER_BYTES));
      if (!header) {
        report.unreadable.push(key);
        logger?.warn(
          { recording: key, bytes: file.size },
          'recording has no readable WAV header; left as it is',
        );
        continue;
      }
      const fix = fixedSizes(header, file.size);
      if (!fix) continue;
      if (fix.truncateTo < file.size) await file.truncate(fix.truncateTo);
      const word = Buffer.alloc(4);
      word.writeUInt32LE(fix.riffSize, 0);
      await file.writeAt(RIFF_SIZE_OFFSET, Buffer.from(word));
      word.writeUInt32LE(fix.dataBytes, 0);
      await file.writeAt(DATA_SIZE_OFFSET, word);
      report.repaired.push(key);
      logger?.info(
        { recording: key, data_bytes: fix.dataBytes },
        'recording header finished after an unclean stop',
      );
    } finally {
      await file.close();
    }
  }
  return report;
}
