'use strict';
/**
 * Preloaded (`node --require`) into a service the bench profiles: counts every SQL statement
 * the service runs, and on exit writes `statements.<pid>.json` to STATEMENT_TIMES_DIR.
 *
 * - SQLite (better-sqlite3): the time each statement takes to run, on the service's thread.
 *   Commits are statements too, so their share shows.
 * - PostgreSQL (pg): the calls and the bytes sent (query text and parameters). The time a
 *   query takes there is a round trip, not the service's CPU, so it is not counted.
 *
 * Plain CommonJS so that Node loads it before the service, with nothing compiled.
 */
const fs = require('node:fs');
const path = require('node:path');

const dir = process.env.STATEMENT_TIMES_DIR;
const counts = new Map();

/** Multi-row inserts differ only in their row count: one line for all of them. */
function shapeOf(text) {
  return text
    .replace(
      /\((?:\$\d+|\?)(?:, (?:\$\d+|\?))*\)(?:, \((?:\$\d+|\?)(?:, (?:\$\d+|\?))*\))+/g,
      '(…rows)',
    )
    .replace(/in \((?:\$\d+|\?)(?:, (?:\$\d+|\?))*\)/g, 'in (…)')
    .replace(/\s+/g, ' ')
    .trim();
}

function countOf(text) {
  const shape = shapeOf(text);
  let entry = counts.get(shape);
  if (!entry) {
    entry = { calls: 0, ns: 0n, bytes: 0 };
    counts.set(shape, entry);
  }
  return entry;
}

function tryRequire(name) {
  try {
    return require(name);
  } catch {
    return undefined;
  }
}

const Sqlite = tryRequire('better-sqlite3');
if (Sqlite) {
  const prepare = Sqlite.prototype.prepare;
  Sqlite.prototype.prepare = function timedPrepare(text, ...rest) {
    const statement = prepare.call(this, text, ...rest);
    const entry = countOf(text);
    for (const method of ['run', 'all', 'get']) {
      const run = statement[method];
      statement[method] = function timed(...args) {
        const started = process.hrtime.bigint();
        try {
          return run.apply(this, args);
        } finally {
          entry.calls += 1;
          entry.ns += process.hrtime.bigint() - started;
        }
      };
    }
    return statement;
  };
}

const pg = tryRequire('pg');
if (pg) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, values, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      const entry = countOf(text);
      const params = Array.isArray(values) ? values : config?.values;
      entry.calls += 1;
      entry.bytes +=
        Buffer.byteLength(text) + (params ? Buffer.byteLength(JSON.stringify(params)) : 0);
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
