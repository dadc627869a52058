import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { RunStore } from './sustained-harness.js';

/**
 * Reads the run's own database to see whether the follow-up work of an incident storm is
 * done. The service has no endpoint for "outbox empty", and /metrics counts jobs per process:
 * the outbox table is the record the service itself trusts (src/features/outbox).
 */
export interface DrainCounts {
  incidents: number;
  /** Outbox rows whose job has not reported completion (given-up rows included). */
  pending: number;
  gaveUp: number;
  /** Incidents whose approval has no repair decision recorded yet (the follow-up's last step). */
  followUpsOpen: number;
}

export interface DrainReader {
  counts(): Promise<DrainCounts>;
  close(): Promise<void>;
}

export const isDrained = (c: DrainCounts) =>
  c.pending === 0 && c.gaveUp === 0 && c.followUpsOpen === 0;

// An incident's follow-up (src/features/escalation/incident-followup.ts) ends with its repair
// decision: an AUTO_REPAIR_TRIGGERED entry about its approval, allowed or blocked.
const COUNTS_SQL = `select
  (select count(*) from incidents) as incidents,
  (select count(*) from outbox where completed_at is null) as pending,
  (select count(*) from outbox where gave_up_at is not null) as gave_up,
  (select count(*) from incidents i where not exists (
     select 1 from operation_log o
     where o.approval_id = i.approval_id and o.type = 'AUTO_REPAIR_TRIGGERED'
  )) as follow_ups_open`;

interface CountsRow {
  incidents: number | string;
  pending: number | string;
  gave_up: number | string;
  follow_ups_open: number | string;
}

// PostgreSQL returns count(*) as a bigint string; SQLite as a number.
const toCounts = (row: CountsRow): DrainCounts => ({
  incidents: Number(row.incidents),
  pending: Number(row.pending),
  gaveUp: Number(row.gave_up),
  followUpsOpen: Number(row.follow_ups_open),
});

/** Embedded: `$DATA_DIR/app.db` (src/config/database-url.ts), read-only beside the service. */
function sqliteReader(file: string): DrainReader {
  // Read-only is enough in WAL mode while the service holds the file open; every query is
  // its own read transaction, so it sees each commit of the service.
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const statement = db.prepare<[], CountsRow>(COUNTS_SQL);
  return {
    counts: async () => toCounts(statement.get()!),
    close: async () => {
      db.close();
    },
  };
}

/** Distributed: the run's schema, named by the `?schema=` the service was given. */
async function postgresReader(databaseUrl: string): Promise<DrainReader> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  if (!schema) throw new Error(`no ?schema= in ${databaseUrl}`);
  url.searchParams.delete('schema');
  const client = new pg.Client({
    connectionString: url.toString(),
    connectionTimeoutMillis: 5_000,
  });
  await client.connect();
  await client.query(`set search_path to "${schema}"`);
  return {
    counts: async () => toCounts((await client.query<CountsRow>(COUNTS_SQL)).rows[0]!),
    close: () => client.end(),
  };
}

export function openDrainReader(store: RunStore): Promise<DrainReader> {
  return store.mode.kind === 'embedded'
    ? Promise.resolve(sqliteReader(path.join(store.workDir, 'app.db')))
    : postgresReader(store.mode.databaseUrl);
}
