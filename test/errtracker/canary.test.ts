import { describe, expect, it } from 'vitest';
import {
  canaryEventFields,
  canaryNamespace,
  externalEventFields,
  isCanary,
} from '../../src/features/errtracker/canary.js';
import { buildErrorContext } from '../../src/features/errtracker/error-context.js';
import { trackerFixture } from './fixtures.js';

const withIssue = (issue: Record<string, unknown>, action = 'triggered') => ({
  action,
  data: { issue },
});
const withEvent = (event: Record<string, unknown>, action = 'triggered') => ({
  action,
  data: { event },
});

describe('isCanary', () => {
  // spec, POST /webhooks/errtracker/error step 2
  it.each<[string, unknown, boolean]>([
    ['issue id prefix', withIssue({ id: 'platform-canary-001' }), true],
    ['event issue_id prefix', withEvent({ issue_id: 'platform-canary-xyz' }), true],
    ['id prefix is case-sensitive', withIssue({ id: 'PLATFORM-CANARY-001' }), false],
    ['id prefix without the dash', withIssue({ id: 'platform-canary' }), false],
    ['id prefix not at the start', withIssue({ id: 'x-platform-canary-1' }), false],
    ['short id prefix', withIssue({ shortId: 'PLATFORM-CANARY-7' }), true],
    ['short id prefix, lower case', withIssue({ shortId: 'platform-canary-7' }), true],
    ['short id prefix, mixed case', withIssue({ shortId: 'Platform-Canary' }), true],
    ['short id near miss', withIssue({ shortId: 'PLATFORM-CANAR' }), false],
    ['short id not at the start', withIssue({ shortId: 'WEB-PLATFORM-CANARY' }), false],
    ['issue title', withIssue({ title: 'SourceProviderCanary' }), true],
    ['event title', withEvent({ title: 'SourceProviderCanary' }), true],
    ['title is compared exactly', withIssue({ title: 'sourceprovidercanary' }), false],
    ['title with more text', withIssue({ title: 'SourceProviderCanary failed' }), false],
    ['tag pair', withEvent({ tags: [['platform_canary', 'true']] }), true],
    ['tag pair, upper case', withEvent({ tags: [['platform_canary', 'TRUE']] }), true],
    ['tag object', withEvent({ tags: [{ key: 'platform_canary', value: 'True' }] }), true],
    [
      'tag object, boolean value',
      withEvent({ tags: [{ key: 'platform_canary', value: true }] }),
      true,
    ],
    ['tag false', withEvent({ tags: [['platform_canary', 'false']] }), false],
    ['tag 1 is not true', withEvent({ tags: [['platform_canary', '1']] }), false],
    ['tag key differs', withEvent({ tags: [['platform-canary', 'true']] }), false],
    ['tag value padded', withEvent({ tags: [['platform_canary', ' true']] }), false],
    ['marker but action created', withIssue({ id: 'platform-canary-001' }, 'created'), false],
    ['marker but action Triggered', withIssue({ id: 'platform-canary-001' }, 'Triggered'), false],
    ['marker but no action', { data: { issue: { id: 'platform-canary-001' } } }, false],
    ['ordinary issue alert', trackerFixture('issue-alert-triggered'), false],
    ['ordinary issue webhook', trackerFixture('issue-created'), false],
    ['empty body', {}, false],
    ['null body', null, false],
  ])('%s', (_case, payload, expected) => {
    expect(isCanary(payload)).toBe(expected);
  });
});

describe('canaryEventFields', () => {
  const payload = {
    action: 'triggered',
    data: {
      issue: {
        id: 'platform-canary-42',
        title: 'SourceProviderCanary',
        culprit: 'canary.probe in send',
        level: 'error',
        permalink: 'https://tracker.example/issues/42/',
      },
      event: { tags: [['namespace', 'awoooi-prod']] },
    },
  };

  it('records the spec fields, namespace renamed, nothing sent or created', () => {
    const ctx = buildErrorContext(payload);
    const fields = canaryEventFields(payload, ctx, { method: 'operator_key', operatorId: 'ops-1' });
    expect(fields).toEqual({
      project: 'platform',
      provider: 'errtracker',
      stage: 'upstream_canary',
      issue_id: 'platform-canary-42',
      title: 'SourceProviderCanary',
      severity: 'error',
      namespace: 'platform-prod',
      target_resource: 'canary.probe in send',
      fingerprint: 'source-provider-canary:errtracker:platform-canary-42',
      source_url: 'https://tracker.example/issues/42/',
      labels: {
        canary: 'true',
        issue_id: 'platform-canary-42',
        telegram: 'not_sent',
        incident: 'not_created',
        approval: 'not_created',
        auth_method: 'operator_key',
        operator_id: 'ops-1',
      },
      annotations: {
        message: 'SourceProviderCanary',
        culprit: 'canary.probe in send',
        source_url: 'https://tracker.example/issues/42/',
      },
      payload,
    });
  });

  it('names no operator when the hook signature authenticated it', () => {
    const ctx = buildErrorContext(payload);
    const { labels } = canaryEventFields(payload, ctx, {
      method: 'hook_signature',
      operatorId: null,
    });
    expect(labels.auth_method).toBe('hook_signature');
    expect(labels).not.toHaveProperty('operator_id');
  });

  it.each<[string, Record<string, string>, string, string]>([
    ['namespace tag', { namespace: 'awoooi-prod' }, 'web', 'platform-prod'],
    ['environment tag', { environment: 'awoooi-prod' }, 'web', 'platform-prod'],
    ['namespace tag before environment', { namespace: 'ns', environment: 'env' }, 'web', 'ns'],
    ['project slug last', {}, 'awoooi-prod', 'platform-prod'],
    ['replaced inside a longer name', { namespace: 'awoooi-prod-eu' }, 'web', 'platform-prod-eu'],
    ['other names kept', { namespace: 'awoooi-staging' }, 'web', 'awoooi-staging'],
  ])('namespace: %s', (_case, tags, project, expected) => {
    expect(canaryNamespace({ ...buildErrorContext({}), tags, project })).toBe(expected);
  });
});

describe('externalEventFields', () => {
  it.each(['received', 'deduplicated', 'approval_linked'] as const)('%s', (stage) => {
    const payload = trackerFixture('event-python-keyerror');
    const ctx = buildErrorContext(payload);
    const fields = externalEventFields(ctx, stage, payload);
    expect(fields).toMatchObject({
      project: 'platform',
      provider: 'errtracker',
      stage,
      issue_id: '5123400871',
      title: "KeyError: 'currency'",
      severity: 'error',
      namespace: 'errtracker',
      target_resource: 'billing.invoices in build_line_items',
      fingerprint: 'errtracker-5123400871',
      source_url: ctx.source_url,
      labels: {
        issue_id: '5123400871',
        project: 'billing-api',
        level: 'error',
        platform: 'python',
      },
      annotations: { culprit: 'billing.invoices in build_line_items' },
    });
    expect(fields.payload).toBe(payload);
  });

  it('takes a stage’s extra labels and annotations', () => {
    const ctx = buildErrorContext(trackerFixture('issue-created'));
    const fields = externalEventFields(
      ctx,
      'approval_linked',
      {},
      {
        labels: { approval_id: 'a-1' },
        annotations: { note: 'linked' },
      },
    );
    expect(fields.labels.approval_id).toBe('a-1');
    expect(fields.annotations).toMatchObject({
      note: 'linked',
      first_seen: '2024-03-01T07:45:12.318000Z',
    });
  });

  it('targets the project when there is no culprit', () => {
    const ctx = buildErrorContext({ data: { issue: { id: '1', project: { slug: 'web' } } } });
    expect(externalEventFields(ctx, 'received', {}).target_resource).toBe('web');
  });
});
