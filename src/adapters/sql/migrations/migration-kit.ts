import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';
// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
export type AnyDb = Kysely<any>;

/** Epoch milliseconds overflow a 32-bit integer on PostgreSQL; SQLite integers are 64-bit. */
export const time = 'bigint';

/** An auto-numbered primary key: `serial` on PostgreSQL, `integer … autoincrement` on SQLite. */
export function serial(dialect: Dialect) {
  return dialect === 'postgres' ? 'serial' : 'integer';
}

export function rowNumber(dialect: Dialect) {
  return (column: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement();
}
