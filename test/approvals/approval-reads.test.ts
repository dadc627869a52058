import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies under assertion
type Json = Record<string, any>;

const OPERATORS = 'alice:alice-key-0123456789,bob:bob-key-0123456789';
const alice = { 'x-operator-id': 'alice', 'x-operator-key': 'alice-key-0123456789' };
const bob = { 'x-operator-id': 'bob', 'x-operator-key': 'bob-key-0123456789' };
const ENV = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: OPERATORS };

async function openIncident(app: FastifyInstance, severity: string, target: string) {
  const response = await postSigned(app, '/api/v1/webhooks/alerts', {
    alert_name: 'KubePodCrashLooping',
    severity,
    namespace: 'approval-reads',
    target_resource: target,
    message: 'restarting',
  });
  expect(response.json().status).toBe('created');
  return response.json() as { incident_id: string; approval_id: string };
}

const approval = async (app: FastifyInstance, id: string) => {
  const response = await app.inject(`/api/v1/approvals/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Json;
};

/** The approval once its auto-repair evaluation (a background job) has been recorded. */
const evaluated = (app: FastifyInstance, id: string) =>
  waitFor(
    async () => {
      const read = await approval(app, id);
      return read.auto_repair ? read : undefined;
    },
    { what: `the auto-repair evaluation of ${id}` },
  );

const decide = (app: FastifyInstance, id: string, headers: Record<string, string>) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/approvals/${id}/decision`,
    payload: { decision: 'approve' },
    headers,
  });

/** CONTRACT, Operator console: what an approval says at the moment of decision. */
describe.each(backends())('approvals as the console reads them on %s', (backend) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: ENV }));
  });

  it('a P2 incident: auto-repair allowed and run as a dry run, the approval still pending', async () => {
    const opened = await openIncident(app, 'warning', 'dry-0');
    const read = await evaluated(app, opened.approval_id);
    expect(read.auto_repair).toEqual({
      allowed: true,
      blocked_by: null,
      reason: expect.any(String),
    });
    const dryRun = await waitFor(
      async () => {
        const again = await approval(app, opened.approval_id);
        return again.dry_run ? again : undefined;
      },
      { what: 'the dry-run execution recorded' },
    );
    expect(dryRun).toMatchObject({
      status: 'pending',
      signers: 0,
      signers_needed: 1,
      signed_by: [],
      incident: {
        alert_name: 'KubePodCrashLooping',
        namespace: 'approval-reads',
        severity: 'P2',
        status: 'open',
      },
    });
    const listed = (await app.inject(`/api/v1/approvals?ids=${opened.approval_id}`)).json();
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({
      id: opened.approval_id,
      dry_run: true,
      signed_by: [],
      incident: dryRun.incident,
    });
    expect(listed.items[0]).not.toHaveProperty('auto_repair');
  });

  it('a P1 incident: auto-repair blocked by its severity, with the reason', async () => {
    const opened = await openIncident(app, 'critical', 'blocked-0');
    const read = await evaluated(app, opened.approval_id);
    expect(read.auto_repair).toEqual({
      allowed: false,
      blocked_by: 'incident_severity_P1',
      reason: expect.stringContaining('P1'),
    });
    expect(read).toMatchObject({ dry_run: false, incident: { severity: 'P1' } });
  });

  it('a critical approval: the signers in order, then its dry-run execution', async () => {
    const opened = await openIncident(app, 'P0', 'signed-0');
    await evaluated(app, opened.approval_id);
    expect((await decide(app, opened.approval_id, alice)).json()).toMatchObject({
      status: 'pending',
    });
    expect(await approval(app, opened.approval_id)).toMatchObject({
      signers: 1,
      signers_needed: 2,
      signed_by: ['console_alice'],
    });
    expect((await decide(app, opened.approval_id, bob)).json()).toMatchObject({
      status: 'approved',
    });
    const executed = await waitFor(
      async () => {
        const read = await approval(app, opened.approval_id);
        return read.status === 'executed' || read.status === 'failed' ? read : undefined;
      },
      { what: 'the approved execution' },
    );
    expect(executed).toMatchObject({
      signers: 2,
      signed_by: ['console_alice', 'console_bob'],
      dry_run: true,
      incident: { severity: 'P0', status: 'open' },
    });
    const [item] = (await app.inject(`/api/v1/approvals?ids=${opened.approval_id}`)).json().items;
    expect(item).toMatchObject({
      signers: 2,
      signers_needed: 2,
      signed_by: ['console_alice', 'console_bob'],
      dry_run: true,
    });
  });

  it("shows its incident's status as it moves", async () => {
    const opened = await openIncident(app, 'info', 'moved-0');
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${opened.incident_id}/resolve`,
      headers: alice,
    });
    expect((await approval(app, opened.approval_id)).incident).toMatchObject({
      severity: 'P3',
      status: 'resolved',
    });
  });

  it('reads a batch by ids: those that exist, newest first, within every other filter', async () => {
    const made: string[] = [];
    for (const target of ['batch-0', 'batch-1', 'batch-2']) {
      made.push((await openIncident(app, 'warning', target)).approval_id);
    }
    const batch = `${made[0]},approval-missing, ${made[2]}`;
    const page = (await app.inject(`/api/v1/approvals?ids=${batch}&limit=200`)).json();
    expect(page.items.map((item: Json) => item.id)).toEqual([made[2], made[0]]);
    const paged = (await app.inject(`/api/v1/approvals?ids=${batch}&limit=1`)).json();
    expect(paged.items.map((item: Json) => item.id)).toEqual([made[2]]);
    const rest = (
      await app.inject(`/api/v1/approvals?ids=${batch}&limit=1&cursor=${paged.next_cursor}`)
    ).json();
    expect(rest.items.map((item: Json) => item.id)).toEqual([made[0]]);
    const filtered = await app.inject(`/api/v1/approvals?ids=${batch}&status=rejected`);
    expect(filtered.json().items).toEqual([]);
  });

  it.each([
    ['ids=', 'ids names no value'],
    ['ids=,,', 'ids names no value'],
    [
      `ids=${Array.from({ length: 101 }, (_, n) => `a-${n}`).join(',')}`,
      'ids names 101 values; the most is 100',
    ],
  ])('answers %s with a 400', async (query, detail) => {
    const response = await app.inject(`/api/v1/approvals?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ detail, code: 'bad_query' });
  });

  it('documents ids and the new fields', async () => {
    const spec = (await app.inject('/openapi.json')).json();
    const list = spec.paths['/api/v1/approvals'].get;
    expect(list.parameters.find((p: Json) => p.name === 'ids').description).toMatch(/100/);
    const detail = spec.paths['/api/v1/approvals/{id}'].get.responses['200'];
    const fields = Object.keys(detail.content['application/json'].schema.properties);
    expect(fields).toEqual(
      expect.arrayContaining([
        'signers',
        'signers_needed',
        'signed_by',
        'incident',
        'dry_run',
        'auto_repair',
      ]),
    );
  });
});
