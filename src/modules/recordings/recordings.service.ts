// Call recordings as a resource: where they are kept (a RecordingStorage: files under the data
// directory by default), the marks on the call (recording_url, or recording_error when a requested
// recording could not be made), serving one (whole or a byte range), and retention.
//
// With local storage a recording lives on the disk of the node that handled the call; the API
// serves it from the same data directory, so one process (`serve`) or a shared volume. Object
// storage (a second RecordingStorage) lifts that.
import path from 'node:path';
import type { Readable } from 'node:stream';
import { NotFoundError } from '../../shared/errors.js';
import { toDbTime } from '../../store/database.js';
import type { Actor, ServiceDeps } from '../context.js';
import { LocalRecordingStorage, type RecordingFile, type RecordingStorage } from './recording-storage.js';
import { expiredRecordings, markRecording, recordingOf } from './recordings.repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RecordingBody {
  size: number;
  /** The bytes served (inclusive), or null for the whole file. */
  range: { start: number; end: number } | null;
  stream: Readable;
}

export class RecordingsService {
  readonly storage: RecordingStorage;

  constructor(
    private readonly deps: Pick<ServiceDeps, 'db' | 'clock' | 'config' | 'logger'>,
    storage?: RecordingStorage,
  ) {
    this.storage = storage ?? new LocalRecordingStorage(path.join(deps.config.dataDir, 'recordings'));
  }

  /** The call's recording URL as the API shows it. */
  urlFor(callId: string): string {
    return `${this.deps.config.publicBaseUrl}/api/v1/calls/${callId}/recording`;
  }

  /**
   * Starts the recording of a call: the file, and the call's recording_url (so a crash mid-call
   * still leaves a recording the API serves). Never throws: a recording that cannot start is
   * noted on the call (recording_error) and logged, and the call goes on without it.
   */
  async start(callId: string): Promise<RecordingFile | null> {
    try {
      const file = await this.storage.create(callId);
      await markRecording(
        this.deps.db,
        callId,
        { recording_url: this.urlFor(callId), recording_error: null },
        this.now(),
      );
      return file;
    } catch (err) {
      await this.fail(callId, err);
      return null;
    }
  }

  /** A recording that stopped part-way (disk full): the call keeps what was written, and says why. */
  async failed(callId: string, reason: string, kept: boolean): Promise<void> {
    this.deps.logger.warn({ call_id: callId, reason }, 'call recording stopped');
    await markRecording(
      this.deps.db,
      callId,
      { recording_url: kept ? this.urlFor(callId) : null, recording_error: reason },
      this.now(),
    ).catch((err: unknown) =>
      this.deps.logger.error({ err, call_id: callId }, 'could not note the recording failure'),
    );
  }

  private async fail(callId: string, err: unknown): Promise<void> {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
    this.deps.logger.warn(
      { call_id: callId, reason },
      'call recording could not start; the call goes on without it',
    );
    await markRecording(
      this.deps.db,
      callId,
      { recording_url: null, recording_error: reason },
      this.now(),
    ).catch(() => undefined);
  }

  /** The call's recording for GET /calls/{id}/recording; 404 for a foreign call or none. */
  async open(
    actor: Actor,
    callId: string,
    range?: (size: number) => { start: number; end: number } | null,
  ): Promise<RecordingBody> {
    const url = await recordingOf(this.deps.db, actor.workspaceId, callId);
    if (url === undefined) throw new NotFoundError('Call');
    const size = url === null ? null : await this.storage.size(callId);
    if (size === null) throw new NotFoundError('Recording');
    const r = range ? range(size) : null;
    return { size, range: r, stream: this.storage.read(callId, r ?? undefined) };
  }

  /**
   * Deletes recordings of calls that ended more than RECORDING_RETENTION_DAYS ago on this node's
   * storage (the node that recorded them); returns how many. Run every hour by the SIP role.
   */
  async deleteExpired(batch = 500): Promise<number> {
    const cutoff = toDbTime(this.deps.clock.now() - this.deps.config.recordingRetentionDays * DAY_MS);
    let deleted = 0;
    for (;;) {
      const ids = await expiredRecordings(this.deps.db, this.deps.config.nodeId, cutoff, batch);
      for (const id of ids) {
        await this.storage.delete(id);
        await markRecording(this.deps.db, id, { recording_url: null, recording_error: null }, this.now());
      }
      deleted += ids.length;
      if (ids.length < batch) return deleted;
    }
  }

  private now(): string {
    return toDbTime(this.deps.clock.now());
  }
}
