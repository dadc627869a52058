import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The worker's code, inline so it runs the same from `src/` under the test runner and from
 * `dist/`. It opens its own connection and checkpoints without blocking the writer
 * (PASSIVE); on close, one last TRUNCATE leaves an empty WAL behind.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const asleep = new Int32Array(workerData.asleep);
const checkpoint = (mode) => {
  try {
    return db.pragma('wal_checkpoint(' + mode + ')')[0];
  } catch {
    return undefined;
  }
};
let delay = workerData.everyMs;
let lastLog = -1;
let timer;
const schedule = () => {
  timer = setTimeout(tick, delay);
};
const tick = () => {
  // Raised before the look: a write that lands during it wakes this thread again.
  Atomics.store(asleep, 0, 1);
  const result = checkpoint('PASSIVE');
  const log = result ? result.log : -1;
  if (log === lastLog) {
    // Nothing written since: look seldom; the writer's next write wakes this thread.
    delay = workerData.idleMaxMs;
  } else {
    Atomics.store(asleep, 0, 0);
    delay = workerData.everyMs;
  }
  lastLog = log;
  schedule();
};
schedule();
parentPort.on('message', (message) => {
  if (message === 'wake') {
    clearTimeout(timer);
    delay = workerData.everyMs;
    schedule();
    return;
  }
  if (message !== 'close') return;
  clearTimeout(timer);
  checkpoint('TRUNCATE');
  db.close();
  parentPort.postMessage('closed');
});
`;

export interface WalCheckpointer {
  /** Told of every write: wakes a checkpointer that went quiet while nothing was written. */
  written(): void;
  /**
   * Whether it went quiet: its last look found nothing written, and nothing woke it since
   * (also true for a moment during each look). For tests and diagnostics.
   */
  readonly quiet: boolean;
  close(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop. With SQLite's automatic checkpoint alone, the
 * commit that crosses 1000 WAL pages copies them into the database and syncs it, on the
 * thread serving requests; that was near half the cost of a write-heavy request. This thread
 * checkpoints every `everyMs`, so the WAL seldom reaches 1000 pages; under an unbroken storm
 * about one commit per 1000 pages still checkpoints, and finds most pages copied already.
 *
 * The writer's own checkpoint stays on all the same. A checkpoint beside a writer that never
 * pauses (a storm) always ends behind the newest commit, and the WAL starts again from its
 * beginning only once a checkpoint has caught up: without the writer's, 3,000 small commits
 * grew the WAL to 53 MB. On a full disk it is worse than waste: the WAL takes the space a
 * checkpoint needs to grow the database, and once it has, no checkpoint and no write
 * succeeds again until more space is freed than the WAL took.
 *
 * Once a look finds nothing written since the last, it looks only every `idleMaxMs`: an idle
 * service is not woken four times a second. The first write after that wakes it through a
 * shared flag and one message, so a burst of writes is checkpointed at the usual pace; the
 * slow look remains for writes of other processes on the file.
 */
export function startWalCheckpointer(
  file: string,
  /** Called when the worker stops before close(); the writer's own checkpoint remains. */
  onFailure?: (error: unknown) => void,
  everyMs = 250,
  idleMaxMs = 4000,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  // Set by the worker when it goes quiet; the first write after that clears it and wakes it.
  const asleepFlag = new SharedArrayBuffer(4);
  const asleep = new Int32Array(asleepFlag);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver, everyMs, idleMaxMs, asleep: asleepFlag },
  });
  // Never keeps the process alive on its own; close() still waits for the last checkpoint.
  worker.unref();
  let closing = false;
  let failure: unknown;
  // A worker error ends in 'exit' too; kept here so the report can name it.
  worker.on('error', (error) => {
    failure = error;
  });
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      if (!closing)
        onFailure?.(failure ?? new Error(`WAL checkpoint worker exited with code ${code}`));
      resolve();
    });
  });
  return {
    get quiet() {
      return Atomics.load(asleep, 0) === 1;
    },
    written() {
      if (Atomics.load(asleep, 0) === 1 && !closing && Atomics.exchange(asleep, 0, 0) === 1) {
        worker.postMessage('wake');
      }
    },
    close() {
      if (!closing) {
        closing = true;
        worker.once('message', () => void worker.terminate());
        // A worker that already exited ignores this, and `exited` has settled.
        worker.postMessage('close');
      }
      return exited;
    },
  };
}
