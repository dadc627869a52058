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
const checkpoint = (mode) => { try { db.pragma('wal_checkpoint(' + mode + ')'); } catch {} };
const timer = setInterval(() => checkpoint('PASSIVE'), workerData.everyMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  checkpoint('TRUNCATE');
  db.close();
  parentPort.postMessage('closed');
});
`;

export interface WalCheckpointer {
  close(): Promise<void>;
}

/**
 * Moves WAL checkpoints off the event loop. With SQLite's automatic checkpoint, the commit
 * that crosses 1000 WAL pages copies them into the database and syncs it, on the thread
 * serving requests; that was near half the cost of a write-heavy request. The writer turns
 * `wal_autocheckpoint` off and this thread checkpoints every `everyMs` instead.
 */
export function startWalCheckpointer(
  file: string,
  /** Called when the worker stops before close(): the writer must checkpoint again itself. */
  onFailure: (error: unknown) => void,
  everyMs = 250,
): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver, everyMs },
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
        onFailure(failure ?? new Error(`WAL checkpoint worker exited with code ${code}`));
      resolve();
    });
  });
  return {
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
