import { beforeAll, describe, expect, it } from 'vitest';
import {
  addIncidentHits,
  insertIncidents,
  type NewIncident,
} from '../../src/features/incidents/incident-records.js';
import { ROWS_PER_STATEMENT } from '../../src/support/in-chunks.js';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';

function incident(n: number): NewIncident {
  return {
    id: `hits-${n}`,
    fingerprint: `hits-fingerprint-${n}`,
    namespace: 'hits',
    workload: `svc-${n}`,
    alert_type: 'crash_loop',
    alert_type_source: 'rule',
    alert_name: 'KubePodCrashLooping',
    severity: 'P2',
    source: 'test',
    target_resource: `svc-${n}-0`,
    message: '',
    labels: '{}',
    annotations: '{}',
    status: 'open',
    hit_count: 1,
    first_seen: 1_000,
    last_seen: 1_000,
    approval_id: null,
  };
}

describe.each(backends())('raising hit counts together on %s', (backend) => {
  let db: TestApp['app']['services']['store']['db'];
  beforeAll(async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    ({ db } = app.services.store);
  });

  it('raises each incident by its own amount, past one statement of rows, in one call', async () => {
    // More than one statement's rows, so the chunks must each count their own incidents.
    const count = ROWS_PER_STATEMENT + 3;
    const incidents = Array.from({ length: count }, (_, n) => incident(n));
    await db.transaction().execute((tx) => insertIncidents(tx, incidents));
    const rises = incidents.map(({ id }, n) => ({ id, by: (n % 7) + 1 }));
    const counts = await db
      .transaction()
      .execute((tx) => addIncidentHits(tx, [...rises, { id: 'hits-none', by: 4 }], 2_000));

    expect(counts.size).toBe(count);
    expect(counts.has('hits-none')).toBe(false);
    for (const { id, by } of rises) expect(counts.get(id)).toBe(1 + by);
    const rows = await db
      .selectFrom('incidents')
      .select(['id', 'hit_count', 'last_seen'])
      .where('namespace', '=', 'hits')
      .execute();
    expect(rows).toHaveLength(count);
    for (const row of rows) {
      const n = Number(row.id.slice('hits-'.length));
      expect(row).toEqual({ id: row.id, hit_count: 1 + (n % 7) + 1, last_seen: 2_000 });
    }
  });

  it('runs no statement for a batch that joined nothing', async () => {
    // An empty `values` list is a syntax error on both dialects: resolving proves none ran.
    await expect(db.transaction().execute((tx) => addIncidentHits(tx, [], 3_000))).resolves.toEqual(
      new Map(),
    );
  });
});
