// SQLite's WAL checkpoints on a thread of their own. Left to SQLite, the commit that takes the WAL
// past 1,000 pages runs the checkpoint itself: it copies the log into the database file and
// fsyncs both, synchronously, on the thread that committed — the main event loop, where SIP
// messages wait behind it (fsyncs of 4-300 ms were measured there under call set-up load, one
// checkpoint every second or so). Here the store's connection never checkpoints
// (wal_autocheckpoint = 0) and a worker thread with a connection of its own runs a PASSIVE
// checkpoint every INTERVAL_MS: it never waits for readers or writers, and the store's writes go
// on appending to the log meanwhile (the next writer after a full checkpoint starts the log over,
// as before). Durability is unchanged: with synchronous = NORMAL the log is synced at checkpoints
// either way. Should the thread fail, the store's connection checkpoints for itself again.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/**
 * How often the thread checkpoints. One sync stays with the store's connection: the first commit
 * after a complete checkpoint starts the log over and syncs its new header (SQLite's guard against
 * reordered writes), so each checkpoint costs the event loop one small fsync; a second apart keeps
 * that to one a second while the log holds a second of writes (some 1,000 pages at 60 calls/s).
 */
export const INTERVAL_MS = 1000;
/** SQLite's own default, restored should the thread fail. */
const AUTOCHECKPOINT_PAGES = 1000;

// CommonJS run with `eval`, so it works the same built and under the tests' TypeScript loader.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
const timer = setInterval(() => checkpoint.get(), workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export class WalCheckpointer {
  /** The thread checkpoints and the connection no longer does (false: closed or failed first). */
  readonly ready: Promise<boolean>;
  private handedOver = false;
  private closing = false;
  private readonly exited: Promise<void>;

  /**
   * Starts the thread on the database file `sqlite` has open (in WAL mode). Until it is up (some
   * 100 ms) the connection checkpoints for itself; then its own checkpoints are turned off.
   */
  static start(sqlite: SQLite.Database, file: string): WalCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const thread = new Worker(THREAD, { eval: true, workerData: { driver, file, intervalMs: INTERVAL_MS } });
    return new WalCheckpointer(thread, sqlite);
  }

  private constructor(
    private readonly thread: Worker,
    sqlite: SQLite.Database,
  ) {
    this.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    this.ready = new Promise((resolve) => {
      thread.once('message', () => {
        if (this.closing || !sqlite.open) return resolve(false);
        sqlite.pragma('wal_autocheckpoint = 0');
        this.handedOver = true;
        // Never keeps the process alive on its own; the last connection to close checkpoints anyway.
        thread.unref();
        resolve(true);
      });
      // A thread that fails (it should not) leaves or hands checkpoints back to the connection: the
      // log must never grow without bound.
      thread.on('error', () => {
        if (this.handedOver && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
        this.handedOver = false;
        resolve(false);
      });
      void this.exited.then(() => resolve(false));
    });
  }

  /**
   * Stops the thread and closes its connection (before the store's, which then checkpoints last);
   * a thread not up yet is just stopped.
   */
  async close(): Promise<void> {
    this.closing = true;
    // Held while it closes: unref'd, a process with nothing else to do (a CLI command closing its
    // store) would end with the close still waiting, as an unsettled top-level await.
    this.thread.ref();
    if (this.handedOver) this.thread.postMessage('close');
    else await this.thread.terminate();
    await this.exited;
  }
}
