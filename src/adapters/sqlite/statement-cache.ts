import type Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type Row = Record<string, unknown>;

/**
 * A row object made by code generated for one statement's column names. better-sqlite3 makes
 * its row objects key by key through V8's API; a reader's rows are fetched as arrays instead
 * and turned into objects by a literal of fixed shape: about half the time for a wide row
 * (`select *` of twenty columns), never more for a narrow one.
 */
function rowMaker(names: readonly string[]): (values: unknown[]) => Row {
  // Keys are JSON string literals, so no column name can be read as code. A repeated name
  // keeps its last value, as in better-sqlite3's own rows. `__proto__` is computed: written
  // plainly it would set the row's prototype (to a Buffer, say) instead of a property.
  const fields = names.map((name, index) => {
    const key = JSON.stringify(name);
    return `${name === '__proto__' ? `[${key}]` : key}: values[${index}]`;
  });
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => Row;
}

/**
 * One prepared reader whose rows are fetched raw and shaped by `rowMaker`. Another process
 * may change the schema; SQLite then prepares the statement again as it runs, and a
 * `select *` has other columns. The schema's version, read after each run (2 µs; reading the
 * names is 20), says when to read the names again.
 */
function rawReader(statement: Database.Statement, schemaVersion: () => unknown): SqliteStatement {
  statement.raw(true);
  let version = schemaVersion();
  let makeRow = rowMaker(statement.columns().map((column) => column.name));
  const current = () => {
    const now = schemaVersion();
    if (now !== version) {
      version = now;
      makeRow = rowMaker(statement.columns().map((column) => column.name));
    }
    return makeRow;
  };
  return {
    reader: true,
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][];
      const make = current();
      return rows.map((values) => make(values));
    },
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      // Looked up once the first row is read: the run is what prepares a changed schema again,
      // and a running read keeps its snapshot's schema to the end.
      let make: ((values: unknown[]) => Row) | undefined;
      for (const values of statement.iterate(parameters)) {
        make ??= current();
        yield make(values as unknown[]);
      }
    },
  };
}

interface Cached {
  facade: SqliteStatement;
  /** Wakes the WAL checkpointer: a write (no rows back, or rows back from `… returning`). */
  writes: boolean;
}

/**
 * Kysely's SQLite driver prepares every statement again; preparing costs more than running
 * most of ours, so prepared statements are kept by their SQL text (queries are
 * parameterized, so the set of texts is small).
 */
export function withStatementCache(
  connection: Database.Database,
  /** Told before every statement that writes (the WAL checkpointer's wake-up). */
  onWrite: () => void,
  limit = 1000,
): SqliteDatabase {
  const statements = new Map<string, Cached>();
  const versionQuery = connection.prepare('pragma schema_version').pluck();
  const schemaVersion = () => versionQuery.get();
  return {
    close: () => connection.close(),
    prepare(text: string) {
      let cached = statements.get(text);
      if (cached) {
        // Least recently used goes first: batch inserts of every size must not push out
        // the statements every request runs.
        statements.delete(text);
      } else {
        const statement = connection.prepare(text);
        cached = {
          facade: statement.reader ? rawReader(statement, schemaVersion) : statement,
          // A `commit` is read-only to SQLite but returns nothing, so it wakes too.
          writes: !statement.reader || !statement.readonly,
        };
        if (statements.size >= limit) statements.delete(statements.keys().next().value as string);
      }
      statements.set(text, cached);
      if (cached.writes) onWrite();
      return cached.facade;
    },
  };
}
