import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { GAUGE_READ_DEADLINE_MS } from '../../src/observability/operator-gauges.js';
import { backends, buildTestApp, postSigned, TestClock } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'alice-key-0123456789';
const ENV = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` };
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };

/** The value of the sample `name{labels}` (labels as Prometheus prints them), if present. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const head = labels ? `${name}{${labels}} ` : `${name} `;
  const line = text.split('\n').find((row) => row.startsWith(head));
  return line === undefined ? undefined : Number(line.slice(head.length));
}

async function scrape(app: FastifyInstance): Promise<string> {
  const response = await app.inject('/metrics');
  expect(response.statusCode).toBe(200);
  return response.body;
}

const openBySeverity = (text: string) =>
  Object.fromEntries(
    ['P0', 'P1', 'P2', 'P3'].map((severity) => [
      severity,
      sample(text, 'incidents_open', `severity="${severity}"`),
    ]),
  );

/** A firing alert no playbook matches: its approval stays pending (no auto-repair). */
async function openIncident(app: FastifyInstance, target: string, severity: string) {
  const response = await postSigned(app, '/api/v1/webhooks/alerts', {
    alert_name: 'OpsGaugeProbe',
    severity,
    namespace: 'gauges',
    target_resource: target,
  });
  expect(response.statusCode).toBe(200);
  return response.json() as { incident_id: string; approval_id: string };
}

const act = (app: FastifyInstance, id: string, action: 'acknowledge' | 'resolve') =>
  app.inject({ method: 'POST', url: `/api/v1/incidents/${id}/${action}`, headers: alice });

function outboxRow(jobId: string, fields: Record<string, unknown> = {}) {
  return {
    job_id: jobId,
    job_name: 'ops.gauge-probe',
    payload: '{"n":1}',
    created_at: Date.now(),
    relay_after: 0,
    attempts: 0,
    last_error: null,
    relayed_at: null,
    completed_at: null,
    gave_up_at: null,
    ...fields,
  };
}

/** CONTRACT, Operator console: the gauges an operator graphs, through `GET /metrics`. */
describe.each(backends())('operator metrics on %s', (backend) => {
  it('counts open and acknowledged incidents by severity, pending approvals and expired heartbeats', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({ backend, clock, env: ENV });
    const empty = await scrape(app);
    // Every severity is there from the start, at 0.
    expect(openBySeverity(empty)).toEqual({ P0: 0, P1: 0, P2: 0, P3: 0 });
    expect(sample(empty, 'approvals_pending')).toBe(0);
    expect(sample(empty, 'heartbeats_expired')).toBe(0);
    expect(sample(empty, 'outbox_backlog')).toBe(0);
    for (const name of ['incidents_open', 'approvals_pending', 'outbox_backlog']) {
      expect(empty).toContain(`# TYPE ${name} gauge`);
      expect(empty).toMatch(new RegExp(`# HELP ${name} .*all replicas report the same value`));
    }

    const opened = [];
    for (const [target, severity] of [
      ['p0-a', 'P0'],
      ['p1-a', 'P1'],
      ['p1-b', 'P1'],
      ['p2-a', 'P2'],
      ['p3-a', 'P3'],
      ['p3-b', 'P3'],
    ] as const) {
      opened.push(await openIncident(app, target, severity));
    }
    // Acknowledged still counts; resolved does not, and resolving expired its approval.
    expect((await act(app, opened[1]!.incident_id, 'acknowledge')).statusCode).toBe(200);
    expect((await act(app, opened[5]!.incident_id, 'resolve')).statusCode).toBe(200);

    const text = await scrape(app);
    expect(openBySeverity(text)).toEqual({ P0: 1, P1: 2, P2: 1, P3: 1 });
    expect(sample(text, 'approvals_pending')).toBe(5);
    const pending = await app.inject('/api/v1/approvals?status=pending&limit=100');
    expect(pending.json().items).toHaveLength(5);

    // A heartbeat past its time counts as expired before the sweep reaches it, and after.
    const beat = (name: string, timeout: number) =>
      app.inject({
        method: 'POST',
        url: `/api/v1/heartbeats/${name}`,
        payload: { timeout_seconds: timeout, severity: 'P3', namespace: 'gauges' },
      });
    expect((await beat('nightly-etl', 10)).statusCode).toBe(200);
    expect((await beat('backup', 300)).statusCode).toBe(200);
    expect(sample(await scrape(app), 'heartbeats_expired')).toBe(0);
    clock.advance(11_000);
    expect(sample(await scrape(app), 'heartbeats_expired')).toBe(1);
    await waitFor(
      async () => {
        const list = (await app.inject('/api/v1/heartbeats')).json().items;
        const etl = list.find((item: { name: string }) => item.name === 'nightly-etl');
        return etl?.incident_id ? etl : undefined;
      },
      { what: 'the missed heartbeat to open its incident', timeoutMs: 12_000 },
    );
    const swept = await scrape(app);
    expect(sample(swept, 'heartbeats_expired')).toBe(1);
    // The HeartbeatMissing incident (P3 as beaten) counts as any other.
    expect(openBySeverity(swept)).toEqual({ P0: 1, P1: 2, P2: 1, P3: 2 });
    // The next beat ends it: nothing expired, its incident resolved.
    expect((await beat('nightly-etl', 10)).statusCode).toBe(200);
    const back = await scrape(app);
    expect(sample(back, 'heartbeats_expired')).toBe(0);
    expect(openBySeverity(back)).toEqual({ P0: 1, P1: 2, P2: 1, P3: 1 });
  });

  it('counts the outbox rows whose job has neither completed nor been given up', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    await openIncident(app, 'outbox-a', 'P2');
    // The incident's follow-up jobs run and report completion.
    await waitFor(
      async () => ((sample(await scrape(app), 'outbox_backlog') ?? -1) === 0 ? true : undefined),
      { what: 'the follow-up jobs to complete' },
    );
    const later = Date.now() + 60 * 60 * 1000;
    await app.services.store.db
      .insertInto('outbox')
      .values([
        // Waiting to be handed over (a relayer holds it), and handed over without report.
        outboxRow('ops-waiting', { relay_after: later }),
        outboxRow('ops-relayed', { relay_after: later, relayed_at: Date.now(), attempts: 1 }),
        outboxRow('ops-done', { relay_after: later, completed_at: Date.now() }),
        outboxRow('ops-given-up', {
          relay_after: Number.MAX_SAFE_INTEGER,
          gave_up_at: Date.now(),
          attempts: 10,
        }),
      ])
      .execute();
    expect(sample(await scrape(app), 'outbox_backlog')).toBe(2);
    expect(await scrape(app)).toMatch(
      /# HELP outbox_backlog Follow-up jobs committed with their records whose job has not reported completion and was not given up/,
    );
  });

  it('counts each job given up, by its name and by who gave up', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    const { jobs } = app.services;
    let runs = 0;
    jobs.process(
      'ops.always-fails',
      async () => {
        runs += 1;
        throw new Error('this job always fails');
      },
      1,
    );
    const givenUp = (text: string, by: string) =>
      sample(text, 'jobs_given_up_total', `job="ops.always-fails",by="${by}"`);
    // At 0 from the start, so that increase() sees the first give-up.
    expect(givenUp(await scrape(app), 'queue')).toBe(0);
    expect(givenUp(await scrape(app), 'outbox')).toBe(0);

    // Two attempts: the first failure is retried and not counted; the second gives up.
    await jobs.enqueue('ops.always-fails', {}, { jobId: 'fails-twice', attempts: 2 });
    await waitFor(async () => (givenUp(await scrape(app), 'queue') === 1 ? true : undefined), {
      what: 'the job to be given up',
    });
    expect(runs).toBe(2);
    await jobs.enqueue('ops.always-fails', {}, { jobId: 'fails-once', attempts: 1 });
    await waitFor(async () => (givenUp(await scrape(app), 'queue') === 2 ? true : undefined), {
      what: 'the second job to be given up',
    });
    expect(runs).toBe(3);

    // An outbox row offered 10 times without completing is given up by the relay, for good.
    await app.services.store.db
      .insertInto('outbox')
      .values(outboxRow('ops-never-completes', { job_name: 'ops.always-fails', attempts: 10 }))
      .execute();
    const text = await waitFor(
      async () => {
        const scraped = await scrape(app);
        return givenUp(scraped, 'outbox') === 1 ? scraped : undefined;
      },
      { what: 'the outbox row to be given up' },
    );
    expect(givenUp(text, 'queue')).toBe(2);
    expect(sample(text, 'outbox_backlog')).toBe(0);
    expect(text).toContain('# TYPE jobs_given_up_total counter');
    expect(runs).toBe(3);
  });

  it('answers every scrape within its deadline when the database is slow or away, keeping the last values', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    const { app } = test;
    await openIncident(app, 'away-a', 'P0');
    expect(openBySeverity(await scrape(app))).toMatchObject({ P0: 1 });
    const warn = vi.spyOn(app.services.log, 'warn');
    const notCounted = () =>
      warn.mock.calls.filter(([, message]) =>
        String(message).startsWith('/metrics: operator gauges not counted'),
      );
    const timedScrape = async () => {
      const started = performance.now();
      const text = await scrape(app);
      expect(performance.now() - started).toBeLessThan(GAUGE_READ_DEADLINE_MS + 1_000);
      return text;
    };

    if (backend === 'embedded') {
      // SQLite answers or fails at once (its calls are synchronous): here it is gone.
      await app.services.store.close();
      const text = await timedScrape();
      expect(openBySeverity(text)).toEqual({ P0: 1, P1: 0, P2: 0, P3: 0 });
      expect(sample(text, 'approvals_pending')).toBe(1);
      expect(notCounted()[0]?.[0]).toMatchObject({
        gauges: ['incidents_open', 'approvals_pending', 'outbox_backlog', 'heartbeats_expired'],
      });
      return;
    }

    // PostgreSQL made slow: another session holds the incidents table, so counting it waits.
    const schema = new URL(test.env.DATABASE_URL!).searchParams.get('schema')!;
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table "${schema}".incidents in access exclusive mode`);
      for (let round = 0; round < 3; round += 1) {
        const text = await timedScrape();
        expect(openBySeverity(text)).toEqual({ P0: 1, P1: 0, P2: 0, P3: 0 });
        // The other counts are read as usual.
        expect(sample(text, 'approvals_pending')).toBe(1);
      }
      expect(notCounted()[0]?.[0]).toMatchObject({ gauges: ['incidents_open'] });
      // However often it is scraped, one count waits on the table, not one per scrape.
      const waiting = await holder.query(
        `select count(*)::int as n from pg_stat_activity
          where wait_event_type = 'Lock' and query like '%from "incidents"%group by%'`,
      );
      expect(waiting.rows[0].n).toBe(1);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    await openIncident(app, 'away-b', 'P0');
    expect(openBySeverity(await scrape(app))).toEqual({ P0: 2, P1: 0, P2: 0, P3: 0 });
  });
});
