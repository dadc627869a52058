import { beforeAll, describe, expect, it } from 'vitest';
import { findCredentials } from '../../src/features/readbacks/credential-scan.js';
import { routeRedactedRefs } from '../../src/features/readbacks/owner-evidence.js';
import { backends, type TestApp, TestClock } from '../helpers/build-app.js';
import { AGENTS, readbackApp, readbackDir, writeDoc } from './readback-helpers.js';

const SECRETS = [
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
  'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  'postgres://app:s3cr3t-pass@db.example.com:5432/app',
  'AKIAIOSFODNN7EXAMPLE',
  'Bearer eyJhbGciOiJIUzI1NiJ9abcdefghijk',
  'password=hunter2hunter2',
];

describe('findCredentials', () => {
  it.each(SECRETS)('finds %s and never repeats it', (secret) => {
    const findings = findCredentials({ refs: [{ kind: 'note', ref: secret }] });
    expect(findings).toHaveLength(1);
    expect(JSON.stringify(findings)).not.toContain(secret.slice(4, 20));
  });

  it.each([
    [{ password: '[redacted]' }],
    [{ token_ref: 'vault://kv/registry/token' }],
    [{ ref: 'https://user@example.com/path' }],
    [{ note: 'rotate the password monthly' }],
  ])('accepts %j', (body) => {
    expect(findCredentials(body)).toEqual([]);
  });

  it('a secret-named field with a real value is a credential', () => {
    expect(findCredentials({ db: { password: 'correct horse' } })).toEqual([
      { path: 'db.password', kind: 'password_field' },
    ]);
  });
});

describe('routeRedactedRefs', () => {
  const required = ['backup_location', 'restore_test'];
  const complete = [
    { kind: 'backup_location', ref: 'vault://kv/backup/location' },
    { kind: 'restore_test', ref: 'ticket:OPS-9' },
  ];
  it.each([
    ['accepted', { refs: complete }],
    ['needs-supplement', { refs: complete.slice(0, 1) }],
    ['needs-supplement', {}],
    ['quarantined', { refs: [...complete, { kind: 'host', ref: 'readback:x on 10.0.0.4' }] }],
    ['quarantined', { refs: [...complete, { kind: 'note', ref: 'plain words' }] }],
    ['rejected', { refs: [...complete, { kind: 'key', ref: SECRETS[0]! }] }],
    ['rejected', { refs: 'vault://x' }],
  ])('%s: %j', (routing, body) => {
    expect(routeRedactedRefs(body, required).routing).toBe(routing);
  });
});

describe.each(backends())('POST readbacks on %s', (backend) => {
  const clock = new TestClock();
  const dir = readbackDir();
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await readbackApp({ dir, backend, clock }));
  });
  const post = (name: string, payload?: unknown) =>
    app.inject({
      method: 'POST',
      url: `${AGENTS}/${name}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const operationLog = async () =>
    (await app.inject('/api/v1/operation-log?limit=200')).json().items as Array<
      Record<string, unknown>
    >;
  const receipt = {
    receipt_id: 'rcpt-20261122-1',
    target: 'image-registry',
    action_id: 'restart-registry',
    outcome: 'succeeded',
    check_mode: true,
    started_at: '2026-11-22T01:00:00Z',
    finished_at: '2026-11-22T01:04:00Z',
    verifier: { passed: true, ref: 'readback:agent-log-post-write-verifier-dry-run' },
    evidence_refs: ['ticket:OPS-77'],
  };

  describe('imgstore-registry-controlled-recovery-receipt', () => {
    it('answers a learning-writeback receipt and stores nothing', async () => {
      const before = (await operationLog()).length;
      const answer = await post('imgstore-registry-controlled-recovery-receipt', receipt);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({
        receipt_id: 'rcpt-20261122-1',
        learning_writeback: {
          status: 'ready_for_learning',
          lesson: { action_id: 'restart-registry', duration_seconds: 240 },
        },
        persisted: false,
        raw_log_included: false,
      });
      expect((await operationLog()).length).toBe(before);
    });

    it.each([
      [{ outcome: 'exploded' }, 'body.outcome must be one of: succeeded, failed, rolled_back'],
      [{ raw_log: 'kubectl logs ...' }, 'body.raw_log is not an allowed field'],
      [
        { finished_at: '2026-11-22T00:00:00Z' },
        'body.finished_at must not be before body.started_at',
      ],
      [
        { outcome: 'rolled_back' },
        'body.rollback_ref is required when body.outcome is rolled_back',
      ],
      [{ evidence_refs: [] }, 'body.evidence_refs must NOT have fewer than 1 items'],
      [
        { notes: 'token: ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8' },
        'body.notes looks like a credential (access_token); receipts carry references only',
      ],
    ])('422 for %j', async (change, detail) => {
      const answer = await post('imgstore-registry-controlled-recovery-receipt', {
        ...receipt,
        ...change,
      });
      expect(answer.statusCode).toBe(422);
      expect(answer.json()).toEqual({ detail, code: 'validation_failed' });
    });

    it('checks the action against the committed preflight when there is one', async () => {
      writeDoc(dir, 'imgstore-registry-controlled-recovery-preflight', {
        target_selector: { service: 'registry' },
        action_candidates: [{ id: 'gc-blobs', risk_level: 'low' }],
      });
      const answer = await post('imgstore-registry-controlled-recovery-receipt', receipt);
      expect(answer.json()).toEqual({
        code: 'validation_failed',
        detail: "body.action_id must be one of the preflight's action candidates: gc-blobs",
      });
    });
  });

  describe('the vcshost validators', () => {
    it('owner response preflight: 404 without its contract, then validates only', async () => {
      expect((await post('vcshost-target-owner-response-intake-preflight', {})).json()).toEqual({
        code: 'readback_not_found',
        detail: 'Readback data not found: vcshost-target-owner-response-intake-preflight',
      });
      writeDoc(dir, 'vcshost-target-owner-response-intake-preflight', {
        targets: [{ target_id: 'vcs-1', required_fields: ['owner', 'evidence_refs'] }],
        allowed_decisions: ['approve_backup_plan'],
      });
      const good = await post('vcshost-target-owner-response-intake-preflight', {
        target_id: 'vcs-1',
        owner: 'owner-a',
        decision: 'approve_backup_plan',
        evidence_refs: ['ticket:1'],
      });
      expect(good.json()).toMatchObject({
        status: 'ready_for_owner_review',
        findings: [],
        persisted: false,
      });
      const incomplete = await post('vcshost-target-owner-response-intake-preflight', {
        target_id: 'vcs-1',
        decision: 'yes',
        note: 'nas at 192.168.1.9',
      });
      expect(incomplete.json().findings.map((f: { path: string }) => f.path)).toEqual([
        'decision',
        'owner',
        'evidence_refs',
        'note',
      ]);
      const secret = await post('vcshost-target-owner-response-intake-preflight', {
        target_id: 'vcs-1',
        password: 'hunter2hunter2',
      });
      expect(secret.json().status).toBe('rejected');
      expect(secret.body).not.toContain('hunter2');
    });

    it.each(SECRETS)(
      'redacted-refs validator rejects %s without echoing or storing it',
      async (secret) => {
        const before = (await operationLog()).length;
        const answer = await post(
          'vcshost-target-safe-credential-evidence-reviewer-validation/validate-redacted-refs',
          { refs: [{ kind: 'backup_location', ref: secret }] },
        );
        expect(answer.statusCode).toBe(200);
        expect(answer.json()).toMatchObject({
          routing: 'rejected',
          persisted: false,
          single_use: true,
        });
        for (const part of [secret, secret.slice(8, 24)]) expect(answer.body).not.toContain(part);
        expect((await operationLog()).length).toBe(before);
      },
    );
  });
});
