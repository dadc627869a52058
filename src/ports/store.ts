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
  /**
   * Cross-process wake-ups, where the database has them (PostgreSQL's LISTEN/NOTIFY). Absent
   * on SQLite: there, processes sharing the file find each other's writes by polling.
   */
  readonly wakeups?: Wakeups;
  close(): Promise<void>;
}

/** Tells the processes waiting on a topic that there is work, instead of their polling for it. */
export interface Wakeups {
  /**
   * Tells every process listening on `topic`, best effort and without waiting: call it after
   * the commit of the work it announces. A wake-up lost (no connection) is found by a poll.
   */
  notify(topic: string, payload: string): void;
  /**
   * Calls `onWake` with each notification's payload, and with undefined after the listening
   * connection was lost and made again (notifications may have been missed meanwhile).
   * Resolves once listening (or once the first try to connect failed: retries follow).
   */
  listen(topic: string, onWake: (payload: string | undefined) => void): Promise<() => void>;
}
