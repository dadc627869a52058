'use strict';
/**
 * Preloaded (`node --require`) into a service the bench profiles: counts every SQL statement
 * the service runs, and on exit writes `statements.<pid>.json` to STATEMENT_TIMES_DIR.
 *
 * - SQLite (better-sqlite3): the time each statement takes to run, on the service's thread.
 *   Commits are statements too, so their share shows; each is charged to the transaction it
 *   ends, as `commit of: <the transaction's first statement>`.
 * - PostgreSQL (pg): the calls and about the bytes sent (query text and parameters in text
 *   form). The time a query takes there is a round trip, not the service's CPU: not counted.
 *
 * Plain CommonJS so that Node loads it before the service, with nothing compiled.
 */
const fs = require('node:fs');
const path = require('node:path');

const { isMainThread } = require('node:worker_threads');

// Worker threads inherit `--require` and share the pid: only the service's own thread counts.
const dir = isMainThread ? process.env.STATEMENT_TIMES_DIR : undefined;
const counts = new Map();

/**
 * One line per statement shape: PostgreSQL's numbered placeholders, literals written into the
 * text (lock names, times) and numbers become `?`, so multi-row inserts and `in (…)` lists of
 * any length, and what follows them, read the same on both dialects.
 */
function shapeOf(text) {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\$\d+/g, '?')
    .replace(/E?'(?:[^']|'')*'/g, '?')
    .replace(/\b\d+\b/g, '?')
    .replace(/\(\?(?:, \?)*\)(?:, \(\?(?:, \?)*\))+/g, '(…rows)')
    .replace(/in \(\?(?:, \?)*\)/g, 'in (…)')
    .trim();
}

/** About what pg sends for a parameter: its text form's bytes. */
function bytesOf(value) {
  if (value === null || value === undefined) return 0;
  if (Buffer.isBuffer(value)) return value.length;
  try {
    return Buffer.byteLength(typeof value === 'string' ? value : String(JSON.stringify(value)));
  } catch {
    return 0;
  }
}

/** Texts seen lately, so the same text is not taken apart by the regexes at every query. */
const byText = new Map();
const TEXTS_KEPT = 2000;

function countOf(text) {
  let entry = byText.get(text);
  if (entry) return entry;
  const shape = shapeOf(text);
  entry = counts.get(shape);
  if (!entry) {
    entry = { calls: 0, ns: 0n, bytes: 0 };
    counts.set(shape, entry);
  }
  if (byText.size >= TEXTS_KEPT) byText.clear();
  byText.set(text, entry);
  return entry;
}

function tryRequire(name) {
  try {
    return require(name);
  } catch {
    return undefined;
  }
}

/** `begin`, `commit`, `rollback`, `pragma` or a statement of a transaction's own. */
function transactionStep(text) {
  const head = text.trimStart().slice(0, 8).toLowerCase();
  if (head.startsWith('begin')) return 'begin';
  if (head.startsWith('commit')) return 'commit';
  if (head.startsWith('rollback')) return 'rollback';
  // The statement cache's look at the schema version names no transaction.
  if (head.startsWith('pragma')) return 'pragma';
  return 'statement';
}

/** The open transaction's first statement; null right after its `begin`. */
let opener;

const commitsByOpener = new Map();

function commitOf(text) {
  let entry = commitsByOpener.get(text);
  if (!entry) {
    if (commitsByOpener.size >= TEXTS_KEPT) commitsByOpener.clear();
    entry = countOf(`commit of: ${shapeOf(text).slice(0, 120)}`);
    commitsByOpener.set(text, entry);
  }
  return entry;
}

const Sqlite = dir ? tryRequire('better-sqlite3') : undefined;
if (Sqlite) {
  const prepare = Sqlite.prototype.prepare;
  Sqlite.prototype.prepare = function timedPrepare(text, ...rest) {
    const statement = prepare.call(this, text, ...rest);
    const entry = countOf(text);
    const kind = transactionStep(text);
    for (const method of ['run', 'all', 'get']) {
      const run = statement[method];
      statement[method] = function timed(...args) {
        const started = process.hrtime.bigint();
        try {
          return run.apply(this, args);
        } finally {
          const spent = process.hrtime.bigint() - started;
          // A commit is charged to the transaction it ends, named by its first statement.
          const charged = kind === 'commit' && opener ? commitOf(opener) : entry;
          charged.calls += 1;
          charged.ns += spent;
          if (kind === 'begin') opener = null;
          else if (kind === 'commit' || kind === 'rollback') opener = undefined;
          else if (opener === null && kind === 'statement') opener = text;
        }
      };
    }
    return statement;
  };
}

const pg = dir ? tryRequire('pg') : undefined;
if (pg) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, values, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      const entry = countOf(text);
      const params = Array.isArray(values) ? values : config?.values;
      entry.calls += 1;
      entry.bytes += Buffer.byteLength(text);
      if (params) for (const value of params) entry.bytes += bytesOf(value);
    }
    return query.call(this, config, values, ...rest);
  };
}

process.on('exit', () => {
  if (!dir) return;
  const statements = [...counts].map(([text, entry]) => ({
    text,
    calls: entry.calls,
    ms: Number(entry.ns) / 1e6,
    bytes: entry.bytes,
  }));
  fs.writeFileSync(path.join(dir, `statements.${process.pid}.json`), JSON.stringify(statements));
});
