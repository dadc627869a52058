import { describe, expect, it } from 'vitest';
import type { RiskLevel } from '../../src/features/approvals/approval-domain.js';
import type {
  AnomalyFrequency,
  EscalationLevel,
} from '../../src/features/errtracker/anomaly-frequency.js';
import {
  applyEscalation,
  approvalRequestFromIssue,
  riskForTrackerLevel,
  tempApprovalId,
} from '../../src/features/errtracker/approval-from-issue.js';
import { buildErrorContext } from '../../src/features/errtracker/error-context.js';
import type { ErrorAnalysis } from '../../src/ports/analyzer.js';
import { trackerFixture } from './fixtures.js';

const analysis: ErrorAnalysis = {
  root_cause: 'The pricing payload lacks a currency for legacy plans.',
  impact: 'Invoices for legacy plans fail to build.',
  fix_suggestion: 'Default the currency from the account when pricing omits it.',
  prevention: 'Validate pricing payloads at the API boundary.',
  confidence: 0.87,
  analyzed_by: 'rules',
};

const frequency = (escalation_level: EscalationLevel | null): AnomalyFrequency => ({
  anomaly_key: 'errtracker:billing-api:billing.invoices in build_line_items',
  count_1h: 1,
  count_24h: 5,
  count_7d: 5,
  count_30d: 5,
  auto_repair_count: 0,
  escalation_level,
});

describe('riskForTrackerLevel', () => {
  // spec: "fatal to CRITICAL, error to HIGH, warning to MEDIUM, info to LOW"
  it.each<[string, RiskLevel]>([
    ['fatal', 'critical'],
    ['error', 'high'],
    ['warning', 'medium'],
    ['info', 'low'],
    ['FATAL', 'critical'],
    ['critical', 'critical'],
    ['warn', 'medium'],
    ['debug', 'low'],
    ['unheard-of', 'high'],
    ['', 'high'],
  ])('%j → %s', (level, risk) => {
    expect(riskForTrackerLevel(level)).toBe(risk);
  });
});

describe('applyEscalation', () => {
  // spec: PERMANENT_FIX raises to CRITICAL; ESCALATE raises to HIGH unless already CRITICAL
  it.each<[RiskLevel, EscalationLevel | null, RiskLevel]>([
    ['low', 'PERMANENT_FIX', 'critical'],
    ['medium', 'PERMANENT_FIX', 'critical'],
    ['high', 'PERMANENT_FIX', 'critical'],
    ['critical', 'PERMANENT_FIX', 'critical'],
    ['low', 'ESCALATE', 'high'],
    ['medium', 'ESCALATE', 'high'],
    ['high', 'ESCALATE', 'high'],
    ['critical', 'ESCALATE', 'critical'],
    ['low', 'REPEAT', 'low'],
    ['critical', 'REPEAT', 'critical'],
    ['medium', null, 'medium'],
  ])('%s with %s → %s', (risk, escalation, expected) => {
    expect(applyEscalation(risk, escalation)).toBe(expected);
  });
});

describe('approvalRequestFromIssue', () => {
  const ctx = buildErrorContext(trackerFixture('event-python-keyerror'));

  it('without analysis or frequency', () => {
    expect(approvalRequestFromIssue(ctx, null, null)).toEqual({
      action: 'errtracker ERROR Alert: billing.invoices in build_line_items',
      description: "KeyError: 'currency'\n\nAnalysis pending",
      risk_level: 'high',
      blast_radius: {
        affected_pods: 1,
        estimated_downtime: '0',
        related_services: ['billing-api'],
        data_impact: 'READ_ONLY',
      },
      dry_run_checks: [],
      requested_by: 'errtracker-webhook',
      metadata: {
        source: 'errtracker',
        alert_type: 'errtracker_error',
        issue_id: '5123400871',
        project: 'billing-api',
        culprit: 'billing.invoices in build_line_items',
        error_count: 1,
        first_seen: null,
        stacktrace: ctx.stacktrace,
        llm_provider: 'pending',
        llm_confidence: 0,
      },
    });
  });

  it('with analysis and frequency', () => {
    const request = approvalRequestFromIssue(ctx, analysis, frequency('ESCALATE'));
    expect(request.description).toBe(
      [
        "KeyError: 'currency'",
        '',
        'Root cause: The pricing payload lacks a currency for legacy plans.',
        'Suggestion: Default the currency from the account when pricing omits it.',
      ].join('\n'),
    );
    expect(request.metadata).toMatchObject({
      llm_provider: 'rules',
      llm_confidence: 0.87,
      anomaly_frequency: frequency('ESCALATE'),
    });
  });

  it('leaves anomaly_frequency out when there is none', () => {
    expect(approvalRequestFromIssue(ctx, analysis, null).metadata).not.toHaveProperty(
      'anomaly_frequency',
    );
  });

  it.each<[string, string, EscalationLevel | null, RiskLevel]>([
    ['fatal stays critical', 'fatal', null, 'critical'],
    ['warning with REPEAT', 'warning', 'REPEAT', 'medium'],
    ['warning with ESCALATE', 'warning', 'ESCALATE', 'high'],
    ['info with PERMANENT_FIX', 'info', 'PERMANENT_FIX', 'critical'],
    ['ESCALATE does not lower CRITICAL', 'fatal', 'ESCALATE', 'critical'],
  ])('risk: %s', (_case, level, escalation, risk) => {
    const request = approvalRequestFromIssue({ ...ctx, level }, null, frequency(escalation));
    expect(request.risk_level).toBe(risk);
    expect(request.metadata.alert_type).toBe(`errtracker_${level}`);
  });

  it.each<[string, Partial<typeof ctx>, string | undefined, string]>([
    [
      'level upper-cased',
      { level: 'fatal' },
      undefined,
      'errtracker FATAL Alert: billing.invoices in build_line_items',
    ],
    [
      'tracker display name',
      {},
      'Sentry',
      'Sentry ERROR Alert: billing.invoices in build_line_items',
    ],
    ['project when no culprit', { culprit: '' }, undefined, 'errtracker ERROR Alert: billing-api'],
  ])('action: %s', (_case, change, tracker, action) => {
    expect(approvalRequestFromIssue({ ...ctx, ...change }, null, null, tracker).action).toBe(
      action,
    );
  });

  it('carries the issue count and first seen of an issue webhook', () => {
    const issue = buildErrorContext(trackerFixture('issue-created'));
    expect(approvalRequestFromIssue(issue, null, null).metadata).toMatchObject({
      error_count: 3,
      first_seen: '2024-03-01T07:45:12.318000Z',
      stacktrace: [],
    });
  });
});

describe('tempApprovalId', () => {
  it('is temp- plus 8 lower-case hex characters, different each time', () => {
    const ids = Array.from({ length: 50 }, () => tempApprovalId());
    for (const id of ids) expect(id).toMatch(/^temp-[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBeGreaterThan(45);
  });
});
