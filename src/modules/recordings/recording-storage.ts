// Where call recordings live, behind one interface so another store (object storage, say) can take
// the local disk's place. A recording is written once, while its call runs (`create` hands out a
// RecordingFile that appends and rewrites its header), then only read (whole or a byte range),
// listed for recovery, and deleted by retention.
//
// LocalRecordingStorage keeps each call's file as `<dir>/<call id>.wav` (the data directory's
// `recordings/`). Call ids are generated ids, never user input; `keyPath` refuses anything else
// all the same, so no key can name a file outside the folder.
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** A recording being written: appends in order, and rewrites bytes already written (the header). */
export interface RecordingFile {
  append(bytes: Buffer): Promise<void>;
  writeAt(offset: number, bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

export interface RecordingStorage {
  create(key: string): Promise<RecordingFile>;
  /** Byte length, or null when there is no such recording. */
  size(key: string): Promise<number | null>;
  /** The bytes from `start` to `end` inclusive (the whole file without them). */
  read(key: string, range?: { start: number; end: number }): Readable;
  /** The recordings present (keys), for the recovery pass. */
  list(): Promise<string[]>;
  /** Reads, fixes in place: the recovery pass's access to one file. */
  openForRepair(key: string): Promise<RepairHandle | null>;
  delete(key: string): Promise<void>;
}

export interface RepairHandle {
  size: number;
  readAt(offset: number, length: number): Promise<Buffer>;
  writeAt(offset: number, bytes: Buffer): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

const KEY = /^[A-Za-z0-9_-]{1,100}$/;

export class LocalRecordingStorage implements RecordingStorage {
  constructor(private readonly dir: string) {}

  private keyPath(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a recording key: ${JSON.stringify(key)}`);
    return path.join(this.dir, `${key}.wav`);
  }

  async create(key: string): Promise<RecordingFile> {
    await mkdir(this.dir, { recursive: true });
    const fh = await open(this.keyPath(key), 'w');
    return new LocalFile(fh);
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.keyPath(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.keyPath(key), range);
  }

  async list(): Promise<string[]> {
    try {
      const names = await readdir(this.dir);
      return names
        .filter((n) => n.endsWith('.wav'))
        .map((n) => n.slice(0, -4))
        .filter((k) => KEY.test(k));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  async openForRepair(key: string): Promise<RepairHandle | null> {
    let fh: FileHandle;
    try {
      fh = await open(this.keyPath(key), 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    const { size } = await fh.stat();
    return {
      size,
      async readAt(offset, length) {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await fh.read(buf, 0, length, offset);
        return buf.subarray(0, bytesRead);
      },
      async writeAt(offset, bytes) {
        await fh.write(bytes, 0, bytes.length, offset);
      },
      truncate: (length) => fh.truncate(length),
      close: () => fh.close(),
    };
  }

  async delete(key: string): Promise<void> {
    await rm(this.keyPath(key), { force: true });
  }
}

class LocalFile implements RecordingFile {
  private position = 0;
  constructor(private readonly fh: FileHandle) {}

  async append(bytes: Buffer): Promise<void> {
    const at = this.position;
    this.position += bytes.length;
    await this.fh.write(bytes, 0, bytes.length, at);
  }

  async writeAt(offset: number, bytes: Buffer): Promise<void> {
    await this.fh.write(bytes, 0, bytes.length, offset);
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}
