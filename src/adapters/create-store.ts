import type { FastifyBaseLogger } from 'fastify';
import type { DatabaseConfig } from '../config.js';
import type { Store } from '../ports/store.js';
import { createPostgresStore } from './postgres/postgres-store.js';
import { createSqliteStore } from './sqlite/sqlite-store.js';

export function createStore(config: DatabaseConfig, log?: FastifyBaseLogger): Promise<Store> {
  return config.kind === 'postgres'
    ? createPostgresStore({
        url: config.url,
        schema: config.schema,
        onIdleConnectionError: (error) =>
          log?.warn({ err: error }, 'store: an idle PostgreSQL connection failed; dropped it'),
      })
    : createSqliteStore(config.file, {
        onCheckpointerFailure: (error) =>
          log?.error(
            { err: error },
            'store: the WAL checkpoint thread stopped; commits now checkpoint on their own',
          ),
      });
}
