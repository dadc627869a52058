import type { Kysely, Transaction } from 'kysely';
import type { Tables } from './tables.js';

export type { Tables };
export type Db = Kysely<Tables>;
export type Tx = Transaction<Tables>;

/**
 * Relational state. Both adapters expose the same Kysely database, so feature code has
 * one query path; what differs (connections, locking, migrations' column types) stays
 * inside the adapter.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  readonly db: Db;
  /**
   * Runs `work` in a transaction that holds an exclusive lock on each name until it commits,
   * across every connection and process sharing the database.
   */
  withLock<T>(names: string | readonly string[], work: (tx: Tx) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /** Whether `error` is the database refusing a write for want of disk space. */
  isStorageFull(error: unknown): boolean;
  /** Whether `error` says the database cannot be reached or is not serving now (restart, busy). */
  isUnavailable(error: unknown): boolean;
  close(): Promise<void>;
}
