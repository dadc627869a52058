import type {
  Compilable,
  CompiledQuery,
  Insertable,
  InsertQueryBuilder,
  InsertResult,
  QueryResult,
} from 'kysely';
import type { Db, Tables } from '../ports/store.js';

/**
 * A statement on a hot path whose SQL Kysely builds once per shape and database, after which
 * each call only binds its values. Building and compiling a short statement costs Kysely
 * more than SQLite's run of it: 16 % of a signal's CPU went to query building, most of it
 * in the few statements each signal runs.
 *
 * `parametersOf` lists the values in the order the built SQL binds them, and `shapeOf` says
 * what changes the SQL's text (a list's length). The first build of each shape checks both:
 * a call whose values differ from what Kysely bound throws instead of running wrong SQL.
 * Under Vitest every call is built and compared as well, so each test that runs a statement
 * also checks that `shapeOf` covers whatever changes its text.
 */
export function builtOnce<A, R>(
  build: (db: Db, args: A) => Compilable<R>,
  parametersOf: (args: A) => unknown[],
  shapeOf: (args: A) => string | number = () => '',
  { checkEveryCall = process.env.VITEST !== undefined } = {},
): (db: Db, args: A) => Promise<QueryResult<R>> {
  // Per database (its adapter, which its transactions share): the SQL depends on the dialect.
  const built = new WeakMap<object, Map<string | number, CompiledQuery<R>>>();
  return async (db, args) => {
    const executor = db.getExecutor();
    let shapes = built.get(executor.adapter);
    if (!shapes) {
      shapes = new Map();
      built.set(executor.adapter, shapes);
    }
    const shape = shapeOf(args);
    const parameters = parametersOf(args);
    let compiled = shapes.get(shape);
    if (!compiled || checkEveryCall) {
      const fresh = build(db, args).compile();
      assertSameStatement(fresh, compiled?.sql ?? fresh.sql, parameters);
      compiled ??= fresh;
      shapes.set(shape, compiled);
    }
    return db.executeQuery<R>({ ...compiled, parameters });
  };
}

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
      `builtOnce: the statement binds ${JSON.stringify(compiled.parameters)}, parametersOf gave ${JSON.stringify(parameters)} (${compiled.sql})`,
    );
  }
}

/**
 * A multi-row insert built once per row count: every row carries exactly `columns` (null
 * where empty), bound in that order. A row missing one (a column default) or carrying another
 * builds other SQL, which the check refuses. `finish` adds what follows the rows (an
 * `on conflict` clause) and must bind nothing of its own.
 */
export function insertBuiltOnce<
  T extends keyof Tables & string,
  C extends keyof Insertable<Tables[T]> & string,
>(
  table: T,
  columns: readonly C[],
  finish: (insert: InsertQueryBuilder<Tables, T, InsertResult>) => Compilable<unknown> = (insert) =>
    insert,
): (db: Db, rows: readonly Pick<Insertable<Tables[T]>, C>[]) => Promise<QueryResult<unknown>> {
  type Row = Pick<Insertable<Tables[T]>, C>;
  const valuesOf = (row: Row) => columns.map((column) => row[column]);
  return builtOnce(
    (db, rows: readonly Row[]) =>
      finish(db.insertInto(table).values(rows as unknown as Insertable<Tables[T]>[])),
    (rows) => rows.flatMap(valuesOf),
    (rows) => rows.length,
  );
}
