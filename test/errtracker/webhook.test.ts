import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { externalEventFields } from '../../src/features/errtracker/canary.js';
import { describeIssue } from '../../src/features/errtracker/error-context.js';
import {
  eventPayload,
  rawEventPayload,
} from '../../src/features/errtracker/external-event-records.js';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { deliver, issueAlert, TRACKER_URL } from './tracker-delivery.js';

const SECRET = 'tracker-secret';

async function eventsOf(app: Awaited<ReturnType<typeof buildTestApp>>['app'], issueId: string) {
  const list = (
    await app.inject(`/api/v1/external-alert-events?issue_id=${issueId}&limit=200`)
  ).json();
  return list.items as Array<{
    id: string;
    stage: string;
    fingerprint: string;
    namespace: string;
    operator_id: string | null;
    auth_method: string | null;
    labels: Record<string, string>;
  }>;
}

describe("a stored payload's digest", () => {
  it('is the SHA-256 of its UTF-8 bytes, from the text or the bytes received', () => {
    // The key of a payload no signature check hashed (canaries, unsigned deliveries): a
    // changed key would store a payload again that an earlier version stored.
    const json = '{"title":"Zähler ✓"}';
    const digest = '24a8d8fd1ba149e9e0476eb826ff4b329b06e0d00b414e978d3a72719442c94c';
    for (const payload of [eventPayload(json), rawEventPayload(Buffer.from(json, 'utf8'))]) {
      expect(payload.digest).toBe(digest);
      expect(payload.json()).toBe(json);
    }
  });
});

describe.each(backends())('error-tracker webhook on %s', (backend) => {
  let app: TestApp['app'];
  let replicaEnv: TestApp['env'];
  beforeAll(async () => {
    ({ app, env: replicaEnv } = await buildTestApp({
      backend,
      env: {
        ERRTRACKER_CLIENT_SECRET: SECRET,
        OPERATOR_KEYS: 'ops-alice:alice-key',
        SIGNAL_CONSUMER: 'false',
      },
    }));
  });

  it('answers health', async () => {
    const response = await app.inject('/api/v1/webhooks/errtracker/health');
    expect(response.json()).toEqual({ status: 'ok', webhook: 'errtracker' });
  });

  it('checks the signature of the raw body (step 3)', async () => {
    const missing = await deliver(app, issueAlert('sig-1'));
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      detail: 'Missing errtracker-hook-signature header',
      code: 'tracker_signature_failed',
    });
    const wrong = await deliver(app, issueAlert('sig-1'), {
      headers: { 'errtracker-hook-signature': 'abc' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      detail: 'Invalid errtracker-hook-signature',
      code: 'tracker_signature_failed',
    });
    const good = await deliver(app, issueAlert('sig-1'), { secret: SECRET });
    expect(good.statusCode).toBe(200);
  });

  it('treats an unparsable body as an empty object (step 1) and ignores it (step 4)', async () => {
    for (const raw of ['{not json', '[1,2]', '42']) {
      const response = await deliver(app, raw, { secret: SECRET });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'ignored', reason: 'action is not triggered' });
    }
  });

  it('ignores actions other than triggered (step 4)', async () => {
    const response = await deliver(app, issueAlert('resolved-1', { action: 'resolved' }), {
      secret: SECRET,
    });
    expect(response.json()).toEqual({ status: 'ignored', reason: 'action is not triggered' });
    expect(await eventsOf(app, 'resolved-1')).toEqual([]);
  });

  it('accepts a new issue, then de-duplicates it for 600 s (steps 5 and 7)', async () => {
    const first = await deliver(app, issueAlert('dedup-1'), { secret: SECRET });
    expect(first.json()).toEqual({
      status: 'accepted',
      issue_id: 'dedup-1',
      message: 'Analysis scheduled',
    });
    const second = await deliver(app, issueAlert('dedup-1'), { secret: SECRET });
    expect(second.json()).toEqual({ status: 'deduplicated', issue_id: 'dedup-1', ttl: 600 });
    const stages = (await eventsOf(app, 'dedup-1')).map((e) => e.stage);
    expect(stages.filter((s) => s === 'received')).toHaveLength(2);
    expect(stages.filter((s) => s === 'deduplicated')).toHaveLength(1);
    const received = (await eventsOf(app, 'dedup-1')).find((e) => e.stage === 'received')!;
    expect(received).toMatchObject({ fingerprint: 'errtracker-dedup-1', namespace: 'errtracker' });
  });

  it('ignores levels other than error and fatal, after de-duplication (step 6)', async () => {
    const response = await deliver(app, issueAlert('warn-1', { level: 'warning' }), {
      secret: SECRET,
    });
    expect(response.json()).toEqual({
      status: 'ignored',
      reason: 'level warning does not require analysis',
    });
    const again = await deliver(app, issueAlert('warn-1', { level: 'warning' }), {
      secret: SECRET,
    });
    expect(again.json().status).toBe('deduplicated');
  });

  it('accepts exactly one of 100 concurrent deliveries of one issue', async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => deliver(app, issueAlert('storm-1'), { secret: SECRET })),
    );
    const statuses = responses.map((r) => r.json().status);
    expect(statuses.filter((s) => s === 'accepted')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'deduplicated')).toHaveLength(99);
    const stages = (await eventsOf(app, 'storm-1')).map((e) => e.stage);
    expect(stages.filter((s) => s === 'deduplicated')).toHaveLength(99);
  });

  it('records received, then deduplicated, for each repeat of an issue this process claimed', async () => {
    expect((await deliver(app, issueAlert('order-1'), { secret: SECRET })).json().status).toBe(
      'accepted',
    );
    const repeats = await Promise.all(
      Array.from({ length: 10 }, () => deliver(app, issueAlert('order-1'), { secret: SECRET })),
    );
    expect(repeats.map((r) => r.json().status)).toEqual(Array(10).fill('deduplicated'));
    // The analysis adds its approval_linked stage whenever it finishes: not part of the order.
    const oldestFirst = (await eventsOf(app, 'order-1'))
      .map((e) => e.stage)
      .filter((stage) => stage !== 'approval_linked')
      .reverse();
    expect(oldestFirst).toEqual([
      'received',
      ...Array.from({ length: 10 }, () => ['received', 'deduplicated']).flat(),
    ]);
  });

  it.runIf(backend === 'distributed')(
    'deduplicates across replicas: the other replica asks the store, the claimer knows',
    async () => {
      const other = await buildTestApp({
        reuse: { app, env: replicaEnv, backend, close: async () => {} },
      });
      const first = await deliver(other.app, issueAlert('replicas-1'), { secret: SECRET });
      expect(first.json().status).toBe('accepted');
      for (const replica of [app, other.app, app, other.app]) {
        const again = await deliver(replica, issueAlert('replicas-1'), { secret: SECRET });
        expect(again.json().status).toBe('deduplicated');
      }
      const stages = (await eventsOf(app, 'replicas-1')).map((e) => e.stage);
      expect(stages.filter((s) => s === 'received')).toHaveLength(5);
      expect(stages.filter((s) => s === 'deduplicated')).toHaveLength(4);
      await other.close();
    },
  );

  describe('canaries (step 2)', () => {
    const canaries: Array<[string, unknown]> = [
      ['issue id prefix', issueAlert('platform-canary-001')],
      [
        'short id, any case',
        { action: 'triggered', data: { issue: { id: 'c-2', shortId: 'platform-canary-7' } } },
      ],
      ['title', issueAlert('c-3', { title: 'SourceProviderCanary' })],
      [
        'tag',
        {
          action: 'triggered',
          data: { event: { issue_id: 'c-4', tags: [['platform_canary', 'TRUE']] } },
        },
      ],
    ];

    it.each(canaries)(
      'records a canary by %s with operator headers, and nothing else',
      async (_rule, body) => {
        const response = await deliver(app, body, {
          headers: { 'x-operator-id': 'ops-alice', 'x-operator-key': 'alice-key' },
        });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({
          status: 'canary_recorded',
          provider: 'errtracker',
          event_id: expect.any(String),
          conversation_event_id: expect.stringMatching(/^\d+-\d+$/),
          side_effects: {
            incident_created: false,
            approval_created: false,
            chat_sent: false,
            agent_called: false,
          },
        });
        const events = (
          await app.inject(`/api/v1/external-alert-events?stage=upstream_canary&limit=200`)
        ).json();
        const event = events.items.find((e: { id: string }) => e.id === response.json().event_id);
        expect(event).toMatchObject({
          stage: 'upstream_canary',
          project: 'platform',
          provider: 'errtracker',
          operator_id: 'ops-alice',
          auth_method: 'operator_key',
          fingerprint: expect.stringMatching(/^source-provider-canary:errtracker:/),
          labels: { telegram: 'not_sent', incident: 'not_created', approval: 'not_created' },
        });
      },
    );

    it('accepts a canary authenticated by the hook signature', async () => {
      const response = await deliver(app, issueAlert('platform-canary-sig'), { secret: SECRET });
      expect(response.json().status).toBe('canary_recorded');
      const [event] = await eventsOf(app, 'platform-canary-sig');
      expect(event).toMatchObject({ auth_method: 'hook_signature', operator_id: null });
      // Keyed by the SHA-256 of the JSON it stores, though a signature check hashed its body.
      const { db } = app.services.store;
      const { payload_digest } = await db
        .selectFrom('external_alert_events')
        .select('payload_digest')
        .where('id', '=', event?.id ?? '')
        .executeTakeFirstOrThrow();
      const { body } = await db
        .selectFrom('event_payloads')
        .select('body')
        .where('digest', '=', payload_digest)
        .executeTakeFirstOrThrow();
      expect(payload_digest).toBe(crypto.createHash('sha256').update(body).digest('hex'));
    });

    it('rejects a canary with neither (401)', async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        { 'x-operator-id': 'ops-alice', 'x-operator-key': 'wrong' },
        { 'x-operator-id': 'nobody', 'x-operator-key': 'alice-key' },
      ];
      for (const headers of attempts) {
        const response = await deliver(app, issueAlert('platform-canary-x'), { headers });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({
          detail: 'Canary requires operator authentication',
          code: 'canary_unauthenticated',
        });
      }
    });

    it('creates no approval and calls no analyzer for canaries', async () => {
      await deliver(app, issueAlert('platform-canary-quiet'), { secret: SECRET });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const approvals = await app.services.store.db
        .selectFrom('approvals')
        .select('id')
        .where('metadata', 'like', '%platform-canary-quiet%')
        .execute();
      expect(approvals).toEqual([]);
    });
  });

  it('pages the events API and filters by stage and provider', async () => {
    const page = (
      await app.inject('/api/v1/external-alert-events?stage=received&provider=errtracker&limit=2')
    ).json();
    expect(page.items).toHaveLength(2);
    expect(page.items.every((e: { stage: string }) => e.stage === 'received')).toBe(true);
    expect(page.next_cursor).toEqual(expect.any(String));
  });

  it('stores a signed payload once, keyed by a hash of the MAC its signature check computed', async () => {
    // Not ASCII and not as JSON.stringify writes it: the key is of the bytes as signed.
    const raw = JSON.stringify(issueAlert('digest-1', { title: 'Zähler überläuft ✓' })).replace(
      '{',
      '{ ',
    );
    for (let delivery = 0; delivery < 2; delivery++) {
      expect((await deliver(app, raw, { secret: SECRET })).statusCode).toBe(200);
    }
    const mac = crypto.createHmac('sha256', SECRET).update(Buffer.from(raw, 'utf8')).digest('hex');
    const digest = `mac-sha256:${crypto.createHash('sha256').update(mac).digest('hex')}`;
    const { db } = app.services.store;
    // A hash of the MAC, never the MAC: that is the delivery's signature, and replayable.
    for (const table of [
      'event_payloads',
      'external_alert_events',
      'external_event_fields',
    ] as const) {
      expect(JSON.stringify(await db.selectFrom(table).selectAll().execute())).not.toContain(mac);
    }
    const stages = await db
      .selectFrom('external_alert_events')
      .select(['id', 'stage', 'payload_digest'])
      .where('issue_id', '=', 'digest-1')
      .where('stage', 'in', ['received', 'deduplicated'])
      .orderBy('seq')
      .execute();
    expect(stages.map(({ stage, payload_digest }) => ({ stage, payload_digest }))).toEqual([
      { stage: 'received', payload_digest: digest },
      { stage: 'received', payload_digest: digest },
      { stage: 'deduplicated', payload_digest: digest },
    ]);
    const stored = await db
      .selectFrom('event_payloads')
      .select('body')
      .where('digest', '=', digest)
      .execute();
    expect(stored).toEqual([{ body: raw }]);
    // So are the fields its stages share: one row for the three.
    const keys = await db
      .selectFrom('external_alert_events')
      .select('fields_key')
      .distinct()
      .where('issue_id', '=', 'digest-1')
      .where('stage', 'in', ['received', 'deduplicated'])
      .execute();
    expect(keys).toHaveLength(1);
    const detail = await app.inject(`/api/v1/external-alert-events/${stages[2]?.id}`);
    expect(detail.json().payload).toEqual(JSON.parse(raw));
  });

  it("shares one fields row among an issue's deliveries, each keeping its own payload", async () => {
    // Two events of one issue: what the stages show is the issue's, the payloads differ.
    const deliveries = ['event-a', 'event-b'].map((eventId) => {
      const body = issueAlert('fields-1');
      body.data.event.event_id = eventId;
      return JSON.stringify(body);
    });
    for (const raw of deliveries) {
      expect((await deliver(app, raw, { secret: SECRET })).statusCode).toBe(200);
    }
    const { db } = app.services.store;
    const stages = await db
      .selectFrom('external_alert_events')
      .select(['id', 'stage', 'fields_key', 'payload_digest'])
      .where('issue_id', '=', 'fields-1')
      .where('stage', 'in', ['received', 'deduplicated'])
      .orderBy('seq')
      .execute();
    expect(stages.map(({ stage }) => stage)).toEqual(['received', 'received', 'deduplicated']);
    expect(new Set(stages.map(({ fields_key }) => fields_key)).size).toBe(1);
    expect(new Set(stages.map(({ payload_digest }) => payload_digest)).size).toBe(2);
    const details = await Promise.all(
      stages.map(async ({ id }) =>
        (await app.inject(`/api/v1/external-alert-events/${id}`)).json(),
      ),
    );
    expect(details.map((detail) => detail.payload.data.event.event_id)).toEqual([
      'event-a',
      'event-b',
      'event-b',
    ]);
  });

  it('still reads a payload an earlier version stored under its SHA-256', async () => {
    const raw = JSON.stringify(issueAlert('digest-2'));
    const body = Buffer.from(raw, 'utf8');
    const { db } = app.services.store;
    const payload = JSON.parse(raw) as unknown;
    // What an earlier version wrote for this body: the payload keyed by its SHA-256.
    const earlierId = await app.services.trackerEvents.record(
      externalEventFields(describeIssue(payload), 'received', payload),
      Date.now(),
      { payload: rawEventPayload(body) },
    );
    expect((await deliver(app, raw, { secret: SECRET })).statusCode).toBe(200);
    const keys = await db
      .selectFrom('event_payloads')
      .select('digest')
      .where('body', '=', raw)
      .orderBy('digest')
      .execute();
    const sha256 = crypto.createHash('sha256').update(body).digest('hex');
    const mac = crypto.createHmac('sha256', SECRET).update(body).digest('hex');
    const macKey = `mac-sha256:${crypto.createHash('sha256').update(mac).digest('hex')}`;
    expect(keys.map((key) => key.digest)).toEqual([sha256, macKey].sort());
    const events = await eventsOf(app, 'digest-2');
    expect(events.map((event) => event.id)).toContain(earlierId);
    for (const event of events) {
      const detail = await app.inject(`/api/v1/external-alert-events/${event.id}`);
      expect(detail.json().payload).toEqual(payload);
    }
  });
});

describe('error-tracker webhook failures', () => {
  it('rejects everything but canaries in prod without a secret', async () => {
    const { app } = await buildTestApp({ env: { APP_ENV: 'prod', SIGNAL_CONSUMER: 'false' } });
    const response = await deliver(app, issueAlert('prod-1'));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      detail: 'Errtracker client secret is not configured',
      code: 'tracker_signature_failed',
    });
  });

  it('skips verification outside prod without a secret', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const raw = JSON.stringify(issueAlert('dev-1'));
    const response = await deliver(app, raw);
    expect(response.json().status).toBe('accepted');
    // No signature was checked, so no MAC was computed: the payload is keyed by its SHA-256.
    const stored = await app.services.store.db
      .selectFrom('external_alert_events')
      .select('payload_digest')
      .where('issue_id', '=', 'dev-1')
      .execute();
    const sha256 = crypto.createHash('sha256').update(Buffer.from(raw, 'utf8')).digest('hex');
    expect(stored).toEqual([{ payload_digest: sha256 }]);
  });

  it('answers 500 with the fixed detail when a canary cannot be recorded', async () => {
    const { app } = await buildTestApp({ env: { OPERATOR_KEYS: 'a:k', SIGNAL_CONSUMER: 'false' } });
    await app.services.store.close();
    const response = await deliver(app, issueAlert('platform-canary-down'), {
      headers: { 'x-operator-id': 'a', 'x-operator-key': 'k' },
    });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      detail: 'errtracker upstream canary was not recorded',
      code: 'canary_not_recorded',
    });
  });

  it('answers 500 with the error text on an unexpected failure (step 8)', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    await app.services.store.close();
    const response = await app.inject({
      method: 'POST',
      url: TRACKER_URL,
      payload: issueAlert('down-1'),
    });
    expect(response.statusCode).toBe(500);
    expect(response.json().detail).toEqual(expect.any(String));
    expect(response.json().detail.length).toBeGreaterThan(0);
  });
});
