import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned, TestClock } from '../helpers/build-app.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies under assertion
type Json = Record<string, any>;

const KEY = 'alice-key-0123456789';
const ENV = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` };
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };
const MINUTE = 60_000;

/** Opens an incident of its own (its target makes its fingerprint) at the clock's time. */
async function openIncident(
  app: FastifyInstance,
  namespace: string,
  target: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await postSigned(app, '/api/v1/webhooks/alerts', {
    alert_name: 'KubePodCrashLooping',
    severity: 'warning',
    namespace,
    target_resource: target,
    ...extra,
  });
  expect(response.json().status).toBe('created');
  return response.json().incident_id;
}

const list = async (app: FastifyInstance, query: string) => {
  const response = await app.inject(`/api/v1/incidents?${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Json;
};

const ids = (page: Json) => page.items.map((item: Json) => item.id as string);

/** Every page of a query from `cursor` on, following next_cursor. */
async function allPages(
  app: FastifyInstance,
  query: string,
  from: string | null = null,
): Promise<Json[]> {
  const pages: Json[] = [];
  let cursor = from;
  do {
    const page = await list(app, cursor ? `${query}&cursor=${cursor}` : query);
    pages.push(page);
    cursor = page.next_cursor;
  } while (cursor && pages.length < 100);
  return pages;
}

/** CONTRACT, Operator console: what the console's Now view and history read. */
describe.each(backends())('GET /incidents filters and orders on %s', (backend) => {
  const clock = new TestClock();
  let app: FastifyInstance;

  // In ns `ranked`, created in this order, a minute apart: the urgency order is
  // P0 newest, P0 older, P1, P2, P3 (severity first, then last seen newest first).
  const ranked: Record<string, string> = {};
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: ENV, clock }));
    for (const [name, severity] of [
      ['p3', 'P3'],
      ['p0-old', 'P0'],
      ['p2', 'warning'],
      ['p1', 'critical'],
      ['p0-new', 'P0'],
    ] as const) {
      clock.advance(MINUTE);
      ranked[name] = await openIncident(app, 'ranked', `svc-${name}`, { severity });
    }
  });

  it('lists newest first by default and most urgent first with order=urgency', async () => {
    expect(ids(await list(app, 'namespace=ranked'))).toEqual(
      ['p0-new', 'p1', 'p2', 'p0-old', 'p3'].map((name) => ranked[name]),
    );
    expect(ids(await list(app, 'namespace=ranked&order=recent'))).toEqual(
      ids(await list(app, 'namespace=ranked')),
    );
    const urgent = await list(app, 'namespace=ranked&order=urgency');
    expect(ids(urgent)).toEqual(['p0-new', 'p0-old', 'p1', 'p2', 'p3'].map((n) => ranked[n]));
    expect(urgent.items.map((item: Json) => item.severity)).toEqual(['P0', 'P0', 'P1', 'P2', 'P3']);
  });

  it('pages the urgency order with its cursor, each incident once, ties broken by id', async () => {
    // Six incidents seen at the same moment, two per severity: ties in severity and last_seen.
    clock.advance(MINUTE);
    const tied: Json[] = [];
    for (const severity of ['P1', 'P2', 'P1', 'P2', 'P0', 'P0']) {
      tied.push({
        severity,
        id: await openIncident(app, 'tied', `tie-${tied.length}`, { severity }),
      });
    }
    const expected = [...tied]
      .sort((a, b) => a.severity.localeCompare(b.severity) || (a.id < b.id ? -1 : 1))
      .map((incident) => incident.id);
    for (const limit of [1, 2, 4]) {
      const pages = await allPages(app, `namespace=tied&order=urgency&limit=${limit}`);
      expect(pages.flatMap(ids)).toEqual(expected);
      expect(pages.at(-1)?.next_cursor).toBeNull();
    }
  });

  it('keeps its place when incidents arrive between pages (a keyset, not an offset)', async () => {
    const first = await list(app, 'namespace=ranked&order=urgency&limit=2');
    clock.advance(MINUTE);
    // More urgent and newer than anything listed: it belongs before the cursor.
    const late = await openIncident(app, 'ranked', 'svc-late', { severity: 'P0' });
    const rest = await allPages(app, 'namespace=ranked&order=urgency&limit=2', first.next_cursor);
    expect([...ids(first), ...rest.flatMap(ids)]).toEqual(
      ['p0-new', 'p0-old', 'p1', 'p2', 'p3'].map((name) => ranked[name]),
    );
    expect(ids(await list(app, 'namespace=ranked&order=urgency&limit=1'))).toEqual([late]);
  });

  it('refuses a cursor of the other order', async () => {
    const recent = await list(app, 'namespace=ranked&limit=1');
    const urgent = await list(app, 'namespace=ranked&order=urgency&limit=1');
    for (const url of [
      `/api/v1/incidents?order=urgency&cursor=${recent.next_cursor}`,
      `/api/v1/incidents?cursor=${urgent.next_cursor}`,
    ]) {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        detail: 'cursor is not a cursor this service issued',
        code: 'bad_cursor',
      });
    }
  });

  it('filters by status and severity lists, one value or several', async () => {
    const ns = 'states';
    const open = await openIncident(app, ns, 'st-open', { severity: 'P1' });
    const acked = await openIncident(app, ns, 'st-acked', { severity: 'P2' });
    const resolved = await openIncident(app, ns, 'st-resolved', { severity: 'P1' });
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${acked}/acknowledge`,
      headers: alice,
    });
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${resolved}/resolve`,
      headers: alice,
    });
    const query = (filters: string) => list(app, `namespace=${ns}&${filters}`);
    expect(ids(await query('status=open,acknowledged'))).toEqual([acked, open]);
    expect(ids(await query('status=resolved'))).toEqual([resolved]);
    expect(ids(await query('status=open, resolved'))).toEqual([resolved, open]);
    expect(ids(await query('severity=P1'))).toEqual([resolved, open]);
    expect(ids(await query('severity=p2,P1&status=open,acknowledged'))).toEqual([acked, open]);
    expect(ids(await query('severity=P0'))).toEqual([]);
  });

  it('filters by last_seen within [since, until]', async () => {
    const ns = 'timed';
    clock.advance(MINUTE);
    const early = await openIncident(app, ns, 'early');
    const earlyAt = new Date(clock.now()).toISOString();
    clock.advance(10 * MINUTE);
    const late = await openIncident(app, ns, 'late');
    const lateAt = new Date(clock.now()).toISOString();
    const query = (filters: string) => list(app, `namespace=${ns}&${filters}`);
    expect(ids(await query(`since=${earlyAt}`))).toEqual([late, early]);
    expect(ids(await query(`since=${encodeURIComponent(lateAt)}`))).toEqual([late]);
    expect(ids(await query(`until=${earlyAt}`))).toEqual([early]);
    expect(ids(await query(`since=${earlyAt}&until=${lateAt}`))).toEqual([late, early]);
    // The same moment written with an offset.
    const offset = new Date(clock.now() + 2 * 60 * MINUTE).toISOString().replace('Z', '+02:00');
    expect(ids(await query(`until=${encodeURIComponent(offset)}&since=${lateAt}`))).toEqual([late]);
  });

  it('reads a batch by ids: those that exist, in the chosen order', async () => {
    const batch = [ranked.p3, 'inc-missing', ranked['p0-old'], ranked.p1].join(',');
    expect(ids(await list(app, `ids=${batch}`))).toEqual(
      ['p1', 'p0-old', 'p3'].map((name) => ranked[name]),
    );
    expect(ids(await list(app, `ids=${batch}&order=urgency`))).toEqual(
      ['p0-old', 'p1', 'p3'].map((name) => ranked[name]),
    );
    const hundred = Array.from({ length: 99 }, (_, n) => `inc-${n}`).concat(ranked.p2!);
    expect(ids(await list(app, `ids=${hundred.join(',')}`))).toEqual([ranked.p2]);
  });

  it('a batch read by ids returns every record it names, past the default page of 50', async () => {
    const opened: string[] = [];
    for (let n = 0; n < 55; n += 1) opened.push(await openIncident(app, 'batch', `batch-${n}`));
    const incidents = await list(app, `ids=${opened.join(',')}`);
    expect(ids(incidents).sort()).toEqual([...opened].sort());
    expect(incidents.next_cursor).toBeNull();
    const approvalIds = incidents.items.map((item: Json) => item.approval_id as string);
    const approvals = (
      await app.inject(`/api/v1/approvals?ids=${approvalIds.join(',')}`)
    ).json() as Json;
    expect(approvals.items).toHaveLength(55);
    expect((await list(app, `ids=${opened.join(',')}&limit=10`)).items).toHaveLength(10);
  });

  describe('q searches names, namespace, workload, ids and labels, in any case', () => {
    const ns = 'search';
    const made: Record<string, string> = {};
    it('finds each field', async () => {
      made.name = await openIncident(app, ns, 'plain-a', { alert_name: 'DiskPressureCritical' });
      made.label = await openIncident(app, ns, 'plain-b', {
        labels: { team: 'Payments-Core', note: 'say "hi"' },
      });
      made.workload = await openIncident(app, ns, 'Checkout-Frontend');
      const search = async (q: string) =>
        ids(await list(app, `namespace=${ns}&q=${encodeURIComponent(q)}`)).sort();
      expect(await search('diskpressure')).toEqual([made.name]);
      expect(await search('DISKPRESSURE')).toEqual([made.name]);
      expect(await search('payments-core')).toEqual([made.label]);
      expect(await search('say "hi"')).toEqual([made.label]);
      expect(await search('checkout-front')).toEqual([made.workload]);
      expect(await search(made.label!.toUpperCase())).toEqual([made.label]);
      const item = (await list(app, `ids=${made.name}`)).items[0];
      expect(await search(item.fingerprint.slice(4, 20))).toEqual([made.name]);
      expect(ids(await list(app, `q=SEARCH&namespace=${ns}`)).length).toBe(3);
      expect(await search('nowhere-to-be-found')).toEqual([]);
      // key=value: a key ending in the left side, its value starting with the right side.
      expect(await search('team=payments')).toEqual([made.label]);
      expect(await search('eam=PAY')).toEqual([made.label]);
      expect(await search('team=core')).toEqual([]);
      // JSON's own punctuation alone matches no label, not every incident.
      for (const q of [':', ',', '{', '}', '":"']) expect(await search(q)).toEqual([]);
    });

    it('takes %, _ and \\ literally', async () => {
      const percent = await openIncident(app, 'literal', 'lit-a', { labels: { load: 'zz50%' } });
      const hundreds = await openIncident(app, 'literal', 'lit-b', { labels: { load: 'zz500' } });
      const underscore = await openIncident(app, 'literal', 'lit-c', { labels: { k: 'a_b' } });
      const plain = await openIncident(app, 'literal', 'lit-d', { labels: { k: 'axb' } });
      const slash = await openIncident(app, 'literal', 'lit-e', { labels: { path: 'C:\\temp' } });
      const search = async (q: string) =>
        ids(await list(app, `namespace=literal&q=${encodeURIComponent(q)}`)).sort();
      expect(await search('zz50%')).toEqual([percent]);
      expect(await search('zz50')).toEqual([percent, hundreds].sort());
      expect(await search('a_b')).toEqual([underscore]);
      expect(await search('%')).toEqual([percent]);
      expect(await search('_')).toEqual([underscore]);
      expect(await search('C:\\temp')).toEqual([slash]);
      expect(await search('\\')).toEqual([slash]);
      expect(plain).toBeTruthy();
    });

    it('takes 200 characters of search text', async () => {
      expect((await list(app, `q=${'x'.repeat(200)}`)).items).toEqual([]);
      expect((await list(app, `q=${'é'.repeat(200)}`)).items).toEqual([]);
    });
  });

  it.each([
    ['status=opened', 'status has "opened", which is not one of: open, acknowledged, resolved'],
    ['status=open,,nope', 'status has "nope", which is not one of: open, acknowledged, resolved'],
    ['status=,', 'status names no value'],
    ['severity=P5', 'severity has "P5", which is not one of: P0, P1, P2, P3'],
    ['severity=critical', 'severity has "critical", which is not one of: P0, P1, P2, P3'],
    ['order=sideways', 'order has "sideways", which is not one of: recent, urgency'],
    ['order=recent,urgency', 'order names 2 values; the most is 1'],
    [`q=${'x'.repeat(201)}`, 'q holds 201 characters; the most is 200'],
    [
      'since=yesterday',
      'since is not an ISO 8601 date-time with a time zone, such as 2026-11-26T01:00:00Z',
    ],
    [
      'since=2026-11-26T01:00:00',
      'since is not an ISO 8601 date-time with a time zone, such as 2026-11-26T01:00:00Z',
    ],
    [
      'until=2026-02-30T00:00:00Z',
      'until is not an ISO 8601 date-time with a time zone, such as 2026-11-26T01:00:00Z',
    ],
    ['since=2026-11-26T02:00:00Z&until=2026-11-26T01:00:00Z', 'since is later than until'],
    ['ids=', 'ids names no value'],
    [
      `ids=${Array.from({ length: 101 }, (_, n) => `inc-${n}`).join(',')}`,
      'ids names 101 values; the most is 100',
    ],
  ])('answers %s with a 400 naming it', async (query, detail) => {
    const response = await app.inject(`/api/v1/incidents?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ detail, code: 'bad_query' });
  });

  it('documents every filter', async () => {
    const spec = (await app.inject('/openapi.json')).json();
    const parameters = spec.paths['/api/v1/incidents'].get.parameters as Json[];
    for (const name of ['status', 'severity', 'q', 'since', 'until', 'order', 'ids']) {
      const parameter = parameters.find((p) => p.name === name);
      expect(parameter?.description, name).toEqual(expect.any(String));
    }
    expect(spec.paths['/api/v1/incidents'].get.responses['400']).toBeDefined();
  });
});

describe.each(backends())('GET /incidents/counts on %s', (backend) => {
  it('counts open and acknowledged incidents per severity, and is not taken for an id', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    const zero = await app.inject('/api/v1/incidents/counts');
    expect(zero.statusCode).toBe(200);
    expect(zero.json()).toEqual({ open: { P0: 0, P1: 0, P2: 0, P3: 0 }, total: 0 });

    const made: string[] = [];
    for (const severity of ['P0', 'P0', 'critical', 'warning', 'info', 'P3']) {
      made.push(await openIncident(app, 'counted', `count-${made.length}`, { severity }));
    }
    // Acknowledged still counts; resolved does not.
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${made[0]}/acknowledge`,
      headers: alice,
    });
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${made[5]}/resolve`,
      headers: alice,
    });
    expect((await app.inject('/api/v1/incidents/counts')).json()).toEqual({
      open: { P0: 2, P1: 1, P2: 1, P3: 1 },
      total: 5,
    });
  });

  it('is read API: the console token guards it', async () => {
    const { app } = await buildTestApp({
      backend,
      env: { ...ENV, CONSOLE_TOKEN: 'counts-token-0123456789abcdef' },
    });
    expect((await app.inject('/api/v1/incidents/counts')).statusCode).toBe(401);
    const ok = await app.inject({
      url: '/api/v1/incidents/counts',
      headers: { authorization: 'Bearer counts-token-0123456789abcdef' },
    });
    expect(ok.statusCode).toBe(200);
  });
});
