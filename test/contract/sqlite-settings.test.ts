import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Store } from '../../src/ports/store.js';
import { tempDir } from '../helpers/backends.js';

async function pragma(store: Store, name: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(store.db);
  return Object.values(rows[0] ?? {})[0];
}

describe('the embedded store’s SQLite settings', () => {
  const stores: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes ahead, syncs at checkpoints, and keeps its temporary files in memory', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = await createSqliteStore(path.join(dir, 'app.db'));
    stores.push(store);
    expect(await pragma(store, 'journal_mode')).toBe('wal');
    // NORMAL: in WAL mode a commit is durable against a crash of the process, not of the OS.
    expect(await pragma(store, 'synchronous')).toBe(1);
    // MEMORY: a multi-row insert inside a transaction keeps the pages it may have to undo in
    // a statement journal; past 64 KiB that journal otherwise spills to a temporary file, two
    // writes per page (a new incident's batch did, three writes a request).
    expect(await pragma(store, 'temp_store')).toBe(2);
  });
});
