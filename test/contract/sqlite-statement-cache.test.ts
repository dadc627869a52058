import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../src/adapters/sqlite/statement-cache.js';
import { tempDir } from '../helpers/backends.js';

/**
 * Readers of the embedded store fetch rows as arrays and shape them with generated code: the
 * objects must be the ones better-sqlite3 itself would have made, whatever the columns.
 */
describe('SQLite statement cache: rows shaped from raw arrays', () => {
  const dirs: string[] = [];
  const connections: Database.Database[] = [];
  afterEach(() => {
    for (const connection of connections.splice(0)) connection.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  function open() {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'rows.db');
    const connection = new Database(file);
    connections.push(connection);
    let writes = 0;
    const statements = withStatementCache(connection, () => {
      writes += 1;
    });
    const db = new Kysely<Record<string, Record<string, unknown>>>({
      dialect: new SqliteDialect({ database: statements }),
    });
    const run = async (text: string, parameters: unknown[] = []) =>
      (await db.executeQuery(CompiledQuery.raw(text, parameters))).rows;
    return { file, connection, run, statements, writes: () => writes };
  }

  it('gives the same objects as better-sqlite3, names that need quoting and repeats included', async () => {
    const { connection, run } = open();
    await run(`create table odd ("id" integer primary key, "a""b" text, "x y" real, "n" blob)`);
    await run(`insert into odd values (1, 'q"uote', 1.5, null), (2, '}; throw 1; {', -2, x'00ff')`);
    const statements = [
      'select * from odd order by id',
      `select id, "a""b" as "id", "x y" as "toString", 'v' as "constructor" from odd order by id`,
      'select count(*), max(id) from odd',
      'select * from odd where id = ?',
    ];
    for (const text of statements) {
      const parameters = text.includes('?') ? [2] : [];
      const expected = connection.prepare(text).all(...parameters);
      expect(await run(text, parameters), text).toEqual(expected);
      // The second run comes from the cache.
      expect(await run(text, parameters), text).toEqual(expected);
    }
  });

  it('keeps a column named __proto__ as a property, whatever its value', async () => {
    const { run } = open();
    await run(`create table protos (id integer primary key, "__proto__" blob)`);
    await run(`insert into protos values (1, null), (2, x'00ff')`);
    const rows = (await run('select * from protos order by id')) as Record<string, unknown>[];
    expect(rows.map((row) => Object.getPrototypeOf(row))).toEqual([
      Object.prototype,
      Object.prototype,
    ]);
    expect(rows.map((row) => Object.hasOwn(row, '__proto__'))).toEqual([true, true]);
    expect(Object.getOwnPropertyDescriptor(rows[1], '__proto__')?.value).toEqual(
      Buffer.from([0, 255]),
    );
  });

  it('renames and swaps of columns by another connection reach a `select *` at once', async () => {
    const { file, run } = open();
    await run('create table shifts (id integer primary key, a text, b text)');
    await run(`insert into shifts values (1, 'one', 'bee')`);
    expect(await run('select * from shifts')).toEqual([{ id: 1, a: 'one', b: 'bee' }]);
    const other = new Database(file);
    other.exec('alter table shifts rename column a to alpha');
    expect(await run('select * from shifts')).toEqual([{ id: 1, alpha: 'one', b: 'bee' }]);
    // As many columns as before, in other places: only the names can tell.
    other.exec(
      `alter table shifts drop column alpha; alter table shifts add column c text default 'sea'`,
    );
    other.close();
    expect(await run('select * from shifts')).toEqual([{ id: 1, b: 'bee', c: 'sea' }]);
  });

  it('shapes the rows of an iterated statement too', async () => {
    const { run, statements } = open();
    await run('create table many (id integer primary key, name text)');
    await run(`insert into many (name) values ('a'), ('b')`);
    const statement = statements.prepare('select * from many order by id');
    expect([...statement.iterate([])]).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
  });

  it('follows a schema changed by another connection: a `select *` gets the new columns', async () => {
    const { file, run } = open();
    await run('create table grows (id integer primary key, a text)');
    await run(`insert into grows values (1, 'one')`);
    expect(await run('select * from grows')).toEqual([{ id: 1, a: 'one' }]);

    const other = new Database(file);
    other.exec(`alter table grows add column b text default 'bee'`);
    expect(await run('select * from grows')).toEqual([{ id: 1, a: 'one', b: 'bee' }]);
    other.exec('alter table grows drop column a');
    other.close();
    expect(await run('select * from grows')).toEqual([{ id: 1, b: 'bee' }]);
  });

  it('returns the rows of a write (`returning`) and still reports it as a write', async () => {
    const { run, writes } = open();
    await run('create table items (id integer primary key, name text)');
    const before = writes();
    expect(await run(`insert into items (name) values ('a'), ('b') returning *`)).toEqual([
      { id: 1, name: 'a' },
      { id: 2, name: 'b' },
    ]);
    expect(writes()).toBe(before + 1);
    await run('select * from items');
    expect(writes()).toBe(before + 1);
  });
});
