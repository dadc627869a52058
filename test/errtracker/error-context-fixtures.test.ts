import { describe, expect, it } from 'vitest';
import { buildErrorContext, describeIssue } from '../../src/features/errtracker/error-context.js';
import type { ErrorContext } from '../../src/ports/analyzer.js';
import { type FixtureName, trackerFixture } from './fixtures.js';

describe('buildErrorContext on the recorded payloads', () => {
  type Expected = Omit<ErrorContext, 'tags' | 'stacktrace'> & {
    frames: number;
    lastFrame: ErrorContext['stacktrace'][number] | undefined;
    tag: [string, string] | null;
  };
  it.each<[FixtureName, Expected]>([
    [
      'issue-alert-triggered',
      {
        issue_id: '5123430017',
        source_url:
          'https://sentry.io/organizations/acme/issues/5123430017/events/b8d1f0e2c3a44b5d9e6f7a8b9c0d1e2f/',
        title:
          'OperationalError: connection to server at "reports-db.acme.example" (203.0.113.40), port 5432 failed: FATAL:  remaining...',
        culprit: 'reports.queries in fetch_report_rows',
        level: 'error',
        first_seen: null,
        count: 1,
        project: 'reports-worker',
        message: expect.stringMatching(/^OperationalError: connection to server at /) as never,
        platform: 'python',
        exception: { type: 'OperationalError', value: expect.stringMatching(/port 5432/) as never },
        frames: 5,
        lastFrame: {
          filename: 'psycopg2/__init__.py',
          function: 'connect',
          lineno: 122,
          context_line:
            '    conn = _connect(dsn, connection_factory=connection_factory, **kwasync)',
        },
        tag: ['celery_task_name', 'reports.tasks.export_monthly_report'],
      },
    ],
    [
      'issue-created',
      {
        issue_id: '5123398765',
        // permalink is null in Sentry's issue webhooks, so web_url wins over the API url
        source_url: 'https://sentry.io/organizations/acme/issues/5123398765/',
        title: 'TimeoutError: Payment gateway did not answer within 10s',
        culprit: 'checkout.payments in capture_payment',
        level: 'error',
        first_seen: '2024-03-01T07:45:12.318000Z',
        count: 3,
        project: 'checkout-api',
        message: 'TimeoutError: Payment gateway did not answer within 10s',
        platform: 'python',
        exception: { type: 'TimeoutError', value: 'Payment gateway did not answer within 10s' },
        frames: 0,
        lastFrame: undefined,
        tag: null,
      },
    ],
    [
      'event-python-keyerror',
      {
        issue_id: '5123400871',
        source_url:
          'https://sentry.io/organizations/acme/issues/5123400871/events/9c41d7a2e6b84f0fa3c25e18d7b60f42/',
        title: "KeyError: 'currency'",
        culprit: 'billing.invoices in build_line_items',
        level: 'error',
        first_seen: null,
        count: 1,
        project: 'billing-api',
        message: "KeyError: 'currency'",
        platform: 'python',
        exception: { type: 'KeyError', value: "'currency'" },
        frames: 5,
        lastFrame: {
          filename: 'billing/invoices.py',
          function: 'build_line_items',
          lineno: 63,
          context_line: '    currency = pricing["currency"]',
        },
        tag: ['runtime', 'CPython 3.12.2'],
      },
    ],
    [
      'event-node-typeerror',
      {
        issue_id: '5123409932',
        source_url:
          'https://sentry.io/organizations/acme/issues/5123409932/events/d5e0b3f1a7c94e2b8f6a1c3e5d7b9f02/',
        title: "TypeError: Cannot read properties of undefined (reading 'id')",
        culprit: 'toProfileView(/app/dist/services/profile-service)',
        level: 'error',
        first_seen: null,
        count: 1,
        project: 'profile-service',
        message: "TypeError: Cannot read properties of undefined (reading 'id')",
        platform: 'node',
        exception: {
          type: 'TypeError',
          value: "Cannot read properties of undefined (reading 'id')",
        },
        frames: 5,
        lastFrame: {
          filename: '/app/dist/services/profile-service.js',
          function: 'toProfileView',
          lineno: 57,
          context_line: '    accountId: account.id,',
        },
        tag: ['transaction', 'GET /api/profile/:userId'],
      },
    ],
    [
      'event-java-npe',
      {
        issue_id: '5123415570',
        source_url:
          'https://sentry.io/organizations/acme/issues/5123415570/events/0a7f3c9e2b5d4186a9e0c4f7b2d1e863/',
        title:
          'NullPointerException: Cannot invoke "com.acme.orders.domain.Customer.getEmail()" because "customer" is null',
        culprit: 'com.acme.orders.notify.ConfirmationMailer in compose',
        level: 'error',
        first_seen: null,
        count: 1,
        project: 'orders-service',
        message:
          'NullPointerException: Cannot invoke "com.acme.orders.domain.Customer.getEmail()" because "customer" is null',
        platform: 'java',
        exception: {
          type: 'NullPointerException',
          value:
            'Cannot invoke "com.acme.orders.domain.Customer.getEmail()" because "customer" is null',
        },
        frames: 5,
        lastFrame: {
          filename: 'ConfirmationMailer.java',
          function: 'compose',
          lineno: 41,
          context_line: '        String to = customer.getEmail();',
        },
        tag: ['namespace', 'awoooi-prod'],
      },
    ],
    [
      'event-go-nil-pointer',
      {
        issue_id: '5123421408',
        source_url:
          'https://sentry.io/organizations/acme/issues/5123421408/events/7e2c9a41b3d54f60a8e1c2b3d4f5a6e7/',
        title:
          'runtime.errorString: runtime error: invalid memory address or nil pointer dereference',
        culprit: 'github.com/acme/accounts/internal/store in toProfile',
        level: 'fatal',
        first_seen: null,
        count: 1,
        project: 'accounts-api',
        message:
          'runtime.errorString: runtime error: invalid memory address or nil pointer dereference',
        platform: 'go',
        exception: {
          type: 'runtime.errorString',
          value: 'runtime error: invalid memory address or nil pointer dereference',
        },
        frames: 5,
        lastFrame: {
          filename: 'internal/store/profile.go',
          function: 'toProfile',
          lineno: 71,
          context_line: '\t\tTheme:       row.Settings.Preferences.Theme,',
        },
        // this fixture carries its tags in the `{key, value}` form
        tag: ['server_name', 'accounts-api-84c7d9f6b-z9q8n'],
      },
    ],
  ])('%s', (name, expected) => {
    const { frames, lastFrame, tag, ...fields } = expected;
    const ctx = buildErrorContext(trackerFixture(name));
    expect(ctx).toMatchObject(fields);
    expect(ctx.stacktrace).toHaveLength(frames);
    expect(ctx.stacktrace.at(-1)).toEqual(lastFrame);
    if (tag !== null) expect(ctx.tags[tag[0]]).toBe(tag[1]);
    // A repeat's stages read only the summary: the same fields, without tags and stack.
    const { tags: _tags, stacktrace: _stack, ...summary } = ctx;
    expect(describeIssue(trackerFixture(name))).toEqual(summary);
    for (const frame of ctx.stacktrace) {
      expect(Object.keys(frame).sort()).toEqual(['context_line', 'filename', 'function', 'lineno']);
    }
  });
});
