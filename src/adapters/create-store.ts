import type { DatabaseConfig } from '../config.js';
import type { Store } from '../ports/store.js';
import { createPostgresStore } from './postgres/postgres-store.js';
import { createSqliteStore } from './sqlite/sqlite-store.js';

export function createStore(config: DatabaseConfig): Promise<Store> {
  return config.kind === 'postgres'
    ? createPostgresStore({ url: config.url, schema: config.schema })
    : createSqliteStore(config.file);
}
