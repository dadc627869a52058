import pg from 'pg';
import type { Cluster } from './cluster.js';
import { within } from './requests.js';

/**
 * Whether every incident of `namespace` has had its follow-up: the outbox row relayed and
 * auto-repair evaluated exactly once (one AUTO_REPAIR_TRIGGERED entry per approval).
 */
export async function followUpState(cluster: Cluster, namespace: string) {
  const [row] = await cluster.sql<{
    incidents: string;
    evaluated: string;
    doubled: string;
    executing: string;
  }>(
    `SELECT
       (SELECT count(*) FROM incidents WHERE namespace = $1) AS incidents,
       (SELECT count(DISTINCT o.approval_id) FROM operation_log o
          JOIN incidents i ON i.approval_id = o.approval_id
          WHERE i.namespace = $1 AND o.type = 'AUTO_REPAIR_TRIGGERED') AS evaluated,
       (SELECT count(*) FROM (SELECT o.approval_id FROM operation_log o
          JOIN incidents i ON i.approval_id = o.approval_id
          WHERE i.namespace = $1 AND o.type = 'AUTO_REPAIR_TRIGGERED'
          GROUP BY o.approval_id HAVING count(*) > 1) d) AS doubled,
       (SELECT count(*) FROM approvals a JOIN incidents i ON i.approval_id = a.id
          WHERE i.namespace = $1 AND a.status = 'executing') AS executing`,
    [namespace],
  );
  const [outbox] = await cluster.sql<{ waiting: string }>(
    'SELECT count(*) AS waiting FROM outbox WHERE completed_at IS NULL',
  );
  return {
    incidents: Number(row?.incidents ?? 0),
    evaluated: Number(row?.evaluated ?? 0),
    doubled: Number(row?.doubled ?? 0),
    executing: Number(row?.executing ?? 0),
    outboxWaiting: Number(outbox?.waiting ?? 0),
  };
}

/** Milliseconds until every incident of `namespace` was followed up, or -1 after `timeoutMs`. */
export function followUpDrained(cluster: Cluster, namespace: string, timeoutMs: number) {
  return within(timeoutMs, async () => {
    const state = await followUpState(cluster, namespace);
    return state.incidents > 0 && state.evaluated === state.incidents && state.outboxWaiting === 0;
  });
}

/** The operation log's hash chain, recomputed by the service (GET /operation-log/verify). */
export async function chainVerdict(baseUrl: string): Promise<{ valid: boolean; detail: string }> {
  const response = await fetch(`${baseUrl}/api/v1/operation-log/verify`);
  const body = (await response.json()) as Record<string, unknown>;
  return {
    valid: response.ok && body.intact === true,
    detail: `${body.entries} entries${body.intact ? ', intact' : `, broken at ${body.first_broken_id}: ${body.reason}`}`,
  };
}

/**
 * Holds the operation log's lock row (what every append takes, src/features/oplog) in a
 * transaction of its own until the returned release is called, so follow-up work that
 * reaches the log waits there: a kill then lands mid-repair whatever the machine's speed.
 */
export async function holdOperationLog(cluster: Cluster): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: cluster.postgres.url });
  client.on('error', () => {});
  await client.connect();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO mutexes (name, touched_at) VALUES ('operation_log', $1)
       ON CONFLICT (name) DO UPDATE SET touched_at = excluded.touched_at`,
    [Date.now()],
  );
  return async () => {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
  };
}

/** Connections of the replicas waiting for a row lock (the held operation log). */
export async function waitingOnLocks(cluster: Cluster): Promise<number> {
  const [row] = await cluster.sql<{ waiting: string }>(
    "SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
  );
  return Number(row?.waiting ?? 0);
}
