import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { signApproval } from '../../src/features/approvals/approval-moves.js';
import { insertApproval } from '../../src/features/approvals/approval-records.js';
import { PAGE_BYTE_BUDGET, pageOf } from '../../src/support/newest-first.js';
import { deliver, issueAlert } from '../errtracker/tracker-delivery.js';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies under assertion
type Json = Record<string, any>;

const LISTS = [
  '/api/v1/incidents',
  '/api/v1/approvals',
  '/api/v1/signals',
  '/api/v1/operation-log',
  '/api/v1/external-alert-events',
];

/** Every page of `url`, following next_cursor until it is null. */
async function allPages(app: FastifyInstance, url: string) {
  const pages: Array<{ bytes: number; body: Json }> = [];
  let cursor: string | null = null;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const response = await app.inject(cursor ? `${url}${separator}cursor=${cursor}` : url);
    expect(response.statusCode).toBe(200);
    const body = response.json() as Json;
    pages.push({ bytes: Buffer.byteLength(response.body), body });
    cursor = body.next_cursor;
  } while (cursor && pages.length < 1000);
  return pages;
}

/** A JSON array nested `depth` deep, as text: JSON.stringify cannot write one this deep. */
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A tracker-like payload of about `bytes` characters (a stack trace, as events carry). */
const bulkyPayload = (n: number, bytes: number) => ({
  action: 'triggered',
  data: { event: { issue_id: `bulk-${n}`, stacktrace: `frame ${n}\n`.padEnd(bytes, 'x') } },
});

async function insertEvent(
  app: FastifyInstance,
  payloadJson: string,
  fields: { issue_id: string; stage?: string },
) {
  const digest = crypto.createHash('sha256').update(payloadJson).digest('hex');
  const id = crypto.randomUUID();
  const { db } = app.services.store;
  await db
    .insertInto('event_payloads')
    .values({ digest, body: payloadJson })
    .onConflict((oc) => oc.column('digest').doNothing())
    .execute();
  // Stored as the service stores them, but for keys: no read checks a key against its fields.
  const fieldsKey = `fields-of-${fields.issue_id}`;
  await db
    .insertInto('external_event_fields')
    .values({
      key: fieldsKey,
      project: 'platform',
      title: 'stored directly',
      severity: 'error',
      namespace: 'errtracker',
      target_resource: 'api',
      fingerprint: `errtracker-${fields.issue_id}`,
      source_url: null,
      labels: '{}',
      annotations: '{}',
    })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  await db
    .insertInto('external_alert_events')
    .values({
      id,
      stage: fields.stage ?? 'received',
      provider: 'errtracker',
      issue_id: fields.issue_id,
      fields_key: fieldsKey,
      payload_digest: digest,
      operator_id: null,
      auth_method: null,
      approval_id: null,
      created_at: Date.parse('2026-11-22T01:02:03.000Z'),
    })
    .execute();
  return id;
}

describe('pageOf: the byte budget of a page', () => {
  const rows = [100, 100, 100, 400, 100].map((size, n) => ({ n, text: 'x'.repeat(size) }));
  const view = (row: (typeof rows)[number]) => row;
  const itemBytes = (row: (typeof rows)[number]) => Buffer.byteLength(JSON.stringify(row)) + 1;
  // 512 bytes are kept for the envelope around the items.
  const budgetFor = (sizes: number) => 512 + sizes;

  it.each([
    ['all fit', 10, 10_000, [0, 1, 2, 3, 4], null],
    ['limit stops first', 2, 10_000, [0, 1], 1],
    ['budget stops first', 10, budgetFor(itemBytes(rows[0]!) * 3), [0, 1, 2], 2],
    ['an item over the budget is alone on its page', 10, 1, [0], 0],
  ] as const)('%s', (_case, limit, budget, shown, lastShown) => {
    const page = pageOf(rows, limit, (row) => row.n, view, budget);
    expect(page.items.map((item) => item.n)).toEqual(shown);
    expect(page.next_cursor).toBe(
      lastShown === null ? null : Buffer.from(`c1:${lastShown}`).toString('base64url'),
    );
  });
});

describe.each(backends())('read API lists on %s', (backend) => {
  let app: FastifyInstance;
  let store: TestApp['app']['services']['store'];
  let oplog: TestApp['app']['services']['oplog'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } }));
    ({ store, oplog } = app.services);
  });

  describe('limit', () => {
    it.each(
      LISTS.flatMap((url) => ['1e400', 'Infinity', '-Infinity'].map((limit) => [url, limit])),
    )('%s?limit=%s is a 422 naming the field', async (url, limit) => {
      const response = await app.inject(`${url}?limit=${encodeURIComponent(limit)}`);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        detail: 'querystring.limit must be of type integer',
        code: 'validation_failed',
      });
    });

    it.each(LISTS)('%s still takes limits from 1 to 200', async (url) => {
      for (const limit of ['1', '200', '1e2']) {
        expect((await app.inject(`${url}?limit=${limit}`)).statusCode).toBe(200);
      }
      const over = await app.inject(`${url}?limit=201`);
      expect(over.json()).toEqual({
        detail: 'querystring.limit must be <= 200',
        code: 'validation_failed',
      });
    });
  });

  describe('external alert events', () => {
    it('lists summaries without the payload; the detail route has the payload', async () => {
      const sent = issueAlert('summary-1');
      expect((await deliver(app, sent)).json().status).toBe('accepted');
      const list = (await app.inject('/api/v1/external-alert-events?issue_id=summary-1')).json();
      expect(list.items).toHaveLength(1);
      const [item] = list.items;
      expect(item).not.toHaveProperty('payload');
      expect(item).toMatchObject({
        stage: 'received',
        provider: 'errtracker',
        issue_id: 'summary-1',
        labels: expect.any(Object),
        annotations: expect.any(Object),
        created_at: expect.any(String),
      });

      const detail = await app.inject(`/api/v1/external-alert-events/${item.id}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.headers['content-type']).toMatch(/^application\/json/);
      expect(detail.json()).toEqual({ ...item, payload: sent });
    });

    it('answers 404 for an unknown event', async () => {
      const response = await app.inject('/api/v1/external-alert-events/nope');
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        detail: 'External alert event not found: nope',
        code: 'external_event_not_found',
      });
    });

    it('keeps a page of 200 bulky events small', async () => {
      await Promise.all(
        Array.from({ length: 200 }, (_, n) =>
          insertEvent(app, JSON.stringify(bulkyPayload(n, 20_000)), { issue_id: 'bulky' }),
        ),
      );
      const response = await app.inject('/api/v1/external-alert-events?issue_id=bulky&limit=200');
      expect(response.json().items).toHaveLength(200);
      // 200 × 20 KB of payload was 4 MB; summaries are well under 1 KB each.
      expect(Buffer.byteLength(response.body)).toBeLessThan(200 * 1024);
    });
  });

  describe('stored deep nesting never breaks reading', () => {
    it('serves a 10,000-deep payload stored directly, in the list and the detail', async () => {
      const payloadJson = `{"action":"triggered","data":{"deep":${deepArray(10_000)}}}`;
      const id = await insertEvent(app, payloadJson, { issue_id: 'deep-stored' });
      const list = await app.inject('/api/v1/external-alert-events?limit=200');
      expect(list.statusCode).toBe(200);
      expect(list.json().items.map((e: Json) => e.id)).toContain(id);
      const detail = await app.inject(`/api/v1/external-alert-events/${id}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.body.endsWith(`,"payload":${payloadJson}}`)).toBe(true);
      expect(JSON.parse(detail.body)).toMatchObject({ id, issue_id: 'deep-stored' });
    });

    it('reads whatever the webhook stored of a delivery nesting 10,000 deep', async () => {
      const plain = JSON.stringify(issueAlert('deep-webhook', { level: 'error' }));
      const body = plain.replace('"data":{', `"data":{"deep":${deepArray(10_000)},`);
      expect(body).not.toBe(plain);
      const delivered = await deliver(app, body);
      expect(delivered.statusCode).toBe(200);
      const list = await app.inject('/api/v1/external-alert-events?limit=200');
      expect(list.statusCode).toBe(200);
      const stored = await app.inject('/api/v1/external-alert-events?issue_id=deep-webhook');
      expect(stored.statusCode).toBe(200);
      // Stored (today) or treated as an empty object (a body-depth rule): either way readable.
      for (const event of stored.json().items as Json[]) {
        const detail = await app.inject(`/api/v1/external-alert-events/${event.id}`);
        expect(detail.statusCode).toBe(200);
        expect(detail.body.endsWith(`,"payload":${body}}`)).toBe(true);
      }
    });
  });

  describe('approvals', () => {
    it('lists summaries; metadata and the rest stay on the detail route', async () => {
      const incidentId = `inc-${crypto.randomUUID()}`;
      const metadata = { source: 'errtracker', stacktrace: ['frame'.repeat(2000)], issue_id: 'a1' };
      const id = await insertApproval(
        store.db,
        {
          incidentId,
          riskLevel: 'critical',
          action: 'errtracker FATAL Alert: worker.main',
          description: 'Root cause: '.padEnd(5000, '.'),
          requestedBy: 'errtracker-webhook',
          metadata,
          blastRadius: { affected_pods: 1 },
          dryRunChecks: ['kubectl diff'],
        },
        Date.parse('2026-11-22T01:02:03.000Z'),
      );
      await signApproval(store, id, { actor: 'alice', channel: 'api', now: Date.now() });
      const list = (await app.inject(`/api/v1/approvals?incident_id=${incidentId}`)).json();
      expect(list.items).toEqual([
        {
          id,
          incident_id: incidentId,
          status: 'pending',
          risk_level: 'critical',
          action: 'errtracker FATAL Alert: worker.main',
          requested_by: 'errtracker-webhook',
          signers: 1,
          signers_needed: 2,
          signed_by: ['alice'],
          // Its incident id names no incident.
          incident: null,
          dry_run: false,
          created_at: '2026-11-22T01:02:03.000Z',
          updated_at: '2026-11-22T01:02:03.000Z',
        },
      ]);
      const detail = (await app.inject(`/api/v1/approvals/${id}`)).json();
      expect(detail).toMatchObject({
        id,
        description: 'Root cause: '.padEnd(5000, '.'),
        metadata,
        blast_radius: { affected_pods: 1 },
        dry_run_checks: ['kubectl diff'],
        decisions: [{ actor: 'alice', decision: 'approve', channel: 'api' }],
      });
    });

    it('keeps a page of 200 approvals with stack traces small', async () => {
      const incidentId = `inc-${crypto.randomUUID()}`;
      for (let n = 0; n < 200; n += 1) {
        await insertApproval(
          store.db,
          {
            incidentId,
            riskLevel: 'high',
            action: `errtracker ERROR Alert: job ${n}`,
            description: `Root cause ${n}`.padEnd(2000, '.'),
            requestedBy: 'errtracker-webhook',
            metadata: { stacktrace: Array.from({ length: 50 }, () => 'at frame'.repeat(50)) },
          },
          Date.now(),
        );
      }
      const response = await app.inject(`/api/v1/approvals?incident_id=${incidentId}&limit=200`);
      expect(response.json().items).toHaveLength(200);
      expect(Buffer.byteLength(response.body)).toBeLessThan(200 * 1024);
    });
  });

  describe('incidents', () => {
    it('lists summaries; message, labels and annotations stay on the detail route', async () => {
      const sent = {
        alert_name: 'KubePodCrashLooping',
        severity: 'critical',
        namespace: 'summaries',
        target_resource: 'cart-7d9f8b6c5-x2x4z',
        message: 'restarting '.repeat(100),
        labels: { team: 'shop', tier: 'backend' },
        annotations: { runbook: 'https://runbooks.example/crashloop' },
      };
      const created = (await postSigned(app, '/api/v1/webhooks/alerts', sent)).json();
      const list = (await app.inject('/api/v1/incidents?namespace=summaries')).json();
      expect(list.items).toHaveLength(1);
      const [item] = list.items;
      for (const field of ['message', 'labels', 'annotations', 'grouping']) {
        expect(item).not.toHaveProperty(field);
      }
      expect(item).toMatchObject({
        id: created.incident_id,
        namespace: 'summaries',
        workload: 'cart',
        alert_name: 'KubePodCrashLooping',
        fingerprint: created.fingerprint,
        hit_count: 1,
      });
      const detail = (await app.inject(`/api/v1/incidents/${created.incident_id}`)).json();
      const { fingerprint: _inGrouping, ...rest } = item;
      expect(detail).toMatchObject({
        ...rest,
        message: sent.message,
        labels: sent.labels,
        annotations: sent.annotations,
        grouping: { fingerprint: created.fingerprint },
      });
    });
  });

  describe('byte budget', () => {
    it('pages large operation-log entries within the budget, every entry exactly once', async () => {
      const approvalId = `apr-${crypto.randomUUID()}`;
      const ids: string[] = [];
      // 300 KB each: three fit in a page; the 1.5 MB one is alone on its page.
      for (const kilobytes of [300, 300, 300, 300, 1500, 300, 300, 300]) {
        ids.push(
          await oplog.append(
            {
              type: 'EXECUTION_COMPLETED',
              incidentId: null,
              approvalId,
              actor: 'test',
              actionDetail: `${kilobytes} KB`,
              success: true,
              errorMessage: null,
              context: { output: 'o'.repeat(kilobytes * 1000) },
            },
            Date.now(),
          ),
        );
      }
      const pages = await allPages(
        app,
        `/api/v1/operation-log?approval_id=${approvalId}&limit=200`,
      );
      const seen = pages.flatMap((page) => page.body.items.map((item: Json) => item.id));
      expect(seen).toEqual([...ids].reverse());
      expect(pages.map((page) => page.body.items.length)).toEqual([3, 1, 3, 1]);
      for (const page of pages) {
        if (page.body.items.length > 1) expect(page.bytes).toBeLessThanOrEqual(PAGE_BYTE_BUDGET);
      }
      expect(pages.at(-1)?.body.next_cursor).toBeNull();
    });

    it('gives the signals list the same budget', async () => {
      const ids: string[] = [];
      for (let n = 0; n < 5; n += 1) {
        const response = await postSigned(app, '/api/v1/webhooks/signals', {
          source: 'budget',
          alert_name: 'Big',
          target: `svc-${n}`,
          message: 'm'.repeat(400_000),
        });
        ids.push(response.json().message_id);
      }
      const pages = await allPages(app, '/api/v1/signals?limit=5');
      const seen = pages.flatMap((page) => page.body.items.map((item: Json) => item.id));
      // The newest five are these, two to a page; older small signals may follow.
      expect(seen.filter((id: string) => ids.includes(id))).toEqual([...ids].reverse());
      expect(seen.slice(0, 5)).toEqual([...ids].reverse());
      expect(pages.slice(0, 2).map((page) => page.body.items.length)).toEqual([2, 2]);
      for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(PAGE_BYTE_BUDGET);
    });
  });

  it('documents the detail route', async () => {
    const spec = (await app.inject('/openapi.json')).json();
    expect(Object.keys(spec.paths)).toContain('/api/v1/external-alert-events/{id}');
  });
});

describe('the event detail route is guarded like the list', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: { CONSOLE_TOKEN: 'let-me-in', SIGNAL_CONSUMER: 'false' },
    }));
  });

  it.each(['/api/v1/external-alert-events', '/api/v1/external-alert-events/some-id'])(
    'guards %s',
    async (url) => {
      expect((await app.inject(url)).statusCode).toBe(401);
      const ok = await app.inject({ url, headers: { authorization: 'Bearer let-me-in' } });
      expect(ok.statusCode).not.toBe(401);
    },
  );
});
