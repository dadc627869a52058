import {
  type Compilable,
  CompiledQuery,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type QueryResult,
} from 'kysely';
import type { Db, Tables } from '../ports/store.js';

/** The SQL texts one statement keeps per database; a shape past the budget is built each call. */
const TEXT_BUDGET = 1024 * 1024;

export interface BuiltOnceOptions {
  /** Build every call too and compare (on under Vitest). */
  checkEveryCall?: boolean;
  /** Characters of SQL kept per database (TEXT_BUDGET). */
  textBudget?: number;
}

/**
 * A statement on a hot path whose SQL Kysely builds once per shape and database, after which
 * each call only binds its values. Building and compiling a short statement cost Kysely more
 * than SQLite's run of it: 16 % of a signal's CPU went to query building, most of it in the
 * few statements each signal runs.
 *
 * `parametersOf` lists the values in the order the built SQL binds them, and `shapeOf` says
 * what changes the SQL's text (a list's length). The first build of each shape checks both:
 * a call whose values differ from what Kysely bound throws instead of running wrong SQL.
 * Under Vitest every call is built and compared as well, so each test that runs a statement
 * also checks that `shapeOf` covers whatever changes its text. Only the text is kept, never
 * a call's values; shapes past the text budget are built each call rather than kept.
 */
export function builtOnce<A, R>(
  build: (db: Db, args: A) => Compilable<R>,
  parametersOf: (args: A) => unknown[],
  shapeOf: (args: A) => string | number = () => '',
  {
    checkEveryCall = process.env.VITEST !== undefined,
    textBudget = TEXT_BUDGET,
  }: BuiltOnceOptions = {},
): (db: Db, args: A) => Promise<QueryResult<R>> {
  // Per database (its adapter, which its transactions share): the SQL depends on the dialect.
  const built = new WeakMap<object, { texts: Map<string | number, string>; chars: number }>();
  return async (db, args) => {
    const adapter = db.getExecutor().adapter;
    let kept = built.get(adapter);
    if (!kept) {
      kept = { texts: new Map(), chars: 0 };
      built.set(adapter, kept);
    }
    const shape = shapeOf(args);
    const parameters = parametersOf(args);
    let text = kept.texts.get(shape);
    if (text === undefined || checkEveryCall) {
      const fresh = build(db, args).compile();
      assertSameStatement(fresh, text ?? fresh.sql, parameters);
      if (text === undefined && kept.chars + fresh.sql.length <= textBudget) {
        kept.texts.set(shape, fresh.sql);
        kept.chars += fresh.sql.length;
      }
      text = fresh.sql;
    }
    return db.executeQuery<R>(CompiledQuery.raw(text, parameters));
  };
}

const shown = (values: readonly unknown[]) =>
  `[${values.map((value) => (value === undefined ? 'undefined' : JSON.stringify(value))).join(',')}]`;

function assertSameStatement(
  compiled: CompiledQuery<unknown>,
  builtSql: string,
  parameters: unknown[],
): void {
  if (compiled.sql !== builtSql) {
    throw new Error(`builtOnce: one shape built two texts: ${builtSql} | ${compiled.sql}`);
  }
  const same =
    compiled.parameters.length === parameters.length &&
    compiled.parameters.every((value, index) => Object.is(value, parameters[index]));
  if (!same) {
    throw new Error(
      `builtOnce: the statement binds ${shown(compiled.parameters)}, parametersOf gave ${shown(parameters)} (${compiled.sql})`,
    );
  }
}

type FullRow<T extends keyof Tables, C extends keyof Insertable<Tables[T]>> = {
  [K in C]-?: Exclude<Insertable<Tables[T]>[K], undefined>;
};

/**
 * A multi-row insert built once per row count. Every row gives each of `columns` a value
 * (null where empty), bound in that order, and nothing else is written: a column left out
 * (for its default) throws on every call, and a key not listed is never inserted. `finish`
 * adds what follows the rows (an `on conflict` clause) and must bind nothing of its own.
 */
export function insertBuiltOnce<
  T extends keyof Tables & string,
  C extends keyof Insertable<Tables[T]> & string,
>(
  table: T,
  columns: readonly C[],
  finish: (insert: InsertQueryBuilder<Tables, T, InsertResult>) => Compilable<unknown> = (insert) =>
    insert,
): (db: Db, rows: readonly FullRow<T, C>[]) => Promise<QueryResult<unknown>> {
  const valuesOf = (row: FullRow<T, C>) =>
    columns.map((column) => {
      const value = row[column];
      if (value === undefined) throw new Error(`insert into ${table}: no value for ${column}`);
      return value;
    });
  const exactly = (row: FullRow<T, C>) =>
    Object.fromEntries(columns.map((column) => [column, row[column]])) as Insertable<Tables[T]>;
  return builtOnce(
    (db, rows: readonly FullRow<T, C>[]) => finish(db.insertInto(table).values(rows.map(exactly))),
    (rows) => rows.flatMap(valuesOf),
    (rows) => rows.length,
  );
}
