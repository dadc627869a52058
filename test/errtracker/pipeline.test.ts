import { beforeAll, describe, expect, it } from 'vitest';
import type { Analyzer, ErrorAnalysis } from '../../src/ports/analyzer.js';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { chatCompletion, startUpstream, type Upstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';
import { deliver, issueAlert } from './tracker-delivery.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON body under assertion
type Json = Record<string, any>;

async function approvalFor(app: TestApp['app'], issueId: string): Promise<Json> {
  return waitFor<Json>(
    async () => {
      const row = await app.services.store.db
        .selectFrom('approvals')
        .select('id')
        .where('metadata', 'like', `%"issue_id":"${issueId}"%`)
        .executeTakeFirst();
      if (!row) return undefined;
      return (await app.inject(`/api/v1/approvals/${row.id}`)).json() as Json;
    },
    { what: `the approval for ${issueId}` },
  );
}

describe.each(backends())('error-tracker background analysis on %s', (backend) => {
  let tracker: Upstream;
  let app: TestApp['app'];
  beforeAll(async () => {
    tracker = await startUpstream(() => ({ status: 201, body: { id: 'c1' } }));
    ({ app } = await buildTestApp({
      backend,
      env: {
        SIGNAL_CONSUMER: 'false',
        ERRTRACKER_API_BASE: tracker.url,
        ERRTRACKER_API_TOKEN: 'tracker-token',
      },
    }));
  });

  it('creates the approval, links it, and comments on the issue (spec order)', async () => {
    await deliver(app, issueAlert('pipe-1', { culprit: 'reports.queries in fetch_rows' }));
    const approval = await approvalFor(app, 'pipe-1');
    expect(approval).toMatchObject({
      status: 'pending',
      action: 'errtracker ERROR Alert: reports.queries in fetch_rows',
      risk_level: 'high',
      requested_by: 'errtracker-webhook',
      blast_radius: { affected_pods: 1, estimated_downtime: '0', data_impact: 'READ_ONLY' },
      dry_run_checks: [],
      metadata: {
        source: 'errtracker',
        alert_type: 'errtracker_error',
        issue_id: 'pipe-1',
        culprit: 'reports.queries in fetch_rows',
        llm_provider: 'rules',
        llm_confidence: expect.any(Number),
      },
    });
    expect(approval.metadata.llm_confidence).toBeGreaterThan(0);
    expect(approval.metadata.stacktrace.length).toBeLessThanOrEqual(5);
    expect(approval.description).toMatch(/Root cause: .+/);

    const events = await waitFor(async () => {
      const items = (await app.inject('/api/v1/external-alert-events?issue_id=pipe-1')).json()
        .items as Array<{ stage: string; approval_id: string | null }>;
      return items.length === 2 ? items : undefined;
    });
    expect(events.map((e: { stage: string }) => e.stage)).toEqual(['approval_linked', 'received']);
    expect(events[0]?.approval_id).toBe(approval.id);

    const comment = await waitFor(async () =>
      tracker.requests.find((r) => r.url === '/api/0/issues/pipe-1/comments/'),
    );
    expect(comment.method).toBe('POST');
    expect(comment.headers.authorization).toBe('Bearer tracker-token');
    const text = (comment.body as { text: string }).text;
    expect(text).toMatch(/Root cause/);
    expect(text).toMatch(/Confidence: \d{1,3}%/);
    expect(text).toMatch(/\+08:00/);
    expect(text).not.toMatch(/\| 24h/);
  });

  it('raises frequency: the second issue of one culprit shows the frequency table', async () => {
    const culprit = 'billing.invoices in build_line_items';
    await deliver(app, issueAlert('freq-1', { culprit }));
    await approvalFor(app, 'freq-1');
    await deliver(app, issueAlert('freq-2', { culprit }));
    const approval = await approvalFor(app, 'freq-2');
    expect(approval.metadata.anomaly_frequency).toMatchObject({
      count_24h: 2,
      escalation_level: 'REPEAT',
    });
    const comment = await waitFor(async () =>
      tracker.requests.find((r) => r.url === '/api/0/issues/freq-2/comments/'),
    );
    expect((comment.body as { text: string }).text).toMatch(/24h/);
  });

  it('maps fatal to critical risk', async () => {
    await deliver(app, issueAlert('fatal-1', { level: 'fatal', culprit: 'worker.main' }));
    expect((await approvalFor(app, 'fatal-1')).risk_level).toBe('critical');
  });

  it('escalates to PERMANENT_FIX (critical) at 10 occurrences in 7 days', async () => {
    const culprit = 'search.index in rebuild';
    for (let n = 1; n <= 10; n += 1) await deliver(app, issueAlert(`perm-${n}`, { culprit }));
    const tenth = await approvalFor(app, 'perm-10');
    const all = await Promise.all(
      Array.from({ length: 10 }, (_, n) => approvalFor(app, `perm-${n + 1}`)),
    );
    const levels = all.map((a) => a.metadata.anomaly_frequency?.escalation_level ?? null);
    expect(levels).toContain('PERMANENT_FIX');
    expect(levels).toContain('ESCALATE');
    const permanent = all.find(
      (a) => a.metadata.anomaly_frequency?.escalation_level === 'PERMANENT_FIX',
    );
    expect(permanent?.risk_level).toBe('critical');
    expect(tenth).toBeDefined();
  });

  it('counts the chain in metrics', async () => {
    const text = (await app.inject('/metrics')).body;
    expect(text).toMatch(/alert_chain_success_total\{source="errtracker"\} [1-9]/);
    expect(text).toMatch(
      /alerts_processed_total\{outcome="incident_created",source="errtracker"\} [1-9]/,
    );
    expect(text).toMatch(/anomalies_total\{escalation_level="REPEAT"\} [1-9]/);
  });
});

describe('the openai analyzer in the pipeline', () => {
  it('asks an OpenAI-compatible endpoint and names it as the provider', async () => {
    const analysis: Omit<ErrorAnalysis, 'analyzed_by'> = {
      root_cause: 'The reports database refused connections: its pool is exhausted.',
      impact: 'Report pages fail.',
      fix_suggestion: 'Raise max_connections or add pgbouncer.',
      prevention: 'Alert on pool saturation.',
      confidence: 0.77,
    };
    const llm = await startUpstream(() => chatCompletion(analysis));
    const { app } = await buildTestApp({
      env: {
        SIGNAL_CONSUMER: 'false',
        ANALYZER: 'openai',
        LLM_BASE_URL: llm.url,
        LLM_MODEL: 'test-model',
        LLM_API_KEY: 'sk-test',
      },
    });
    await deliver(app, issueAlert('llm-1'));
    const approval = await approvalFor(app, 'llm-1');
    expect(approval.metadata).toMatchObject({
      llm_provider: 'openai:test-model',
      llm_confidence: 0.77,
    });
    expect(approval.description).toContain(analysis.root_cause);
    expect(llm.requests[0]).toMatchObject({
      url: '/chat/completions',
      headers: { authorization: 'Bearer sk-test' },
    });
  });
});

function controlledAnalyzer(behaviour: (signal: AbortSignal) => Promise<ErrorAnalysis>) {
  const stats = { calls: 0, running: 0, maxRunning: 0 };
  const analyzer: Analyzer = {
    provider: 'controlled',
    async analyze(_context, signal) {
      stats.calls += 1;
      stats.running += 1;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      try {
        return await behaviour(signal);
      } finally {
        stats.running -= 1;
      }
    },
  };
  return { analyzer, stats };
}

const ok: ErrorAnalysis = {
  root_cause: 'r',
  impact: 'i',
  fix_suggestion: 'f',
  prevention: 'p',
  confidence: 0.5,
  analyzed_by: 'controlled',
};

describe('analyzer limits around the pipeline', () => {
  it('opens the breaker after 5 consecutive failures and skips calls while open', async () => {
    const { analyzer, stats } = controlledAnalyzer(async () => {
      throw new Error('model unavailable');
    });
    const { app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false' },
      analyzer,
      resilience: { openMs: 60_000 },
    });
    for (let n = 1; n <= 7; n += 1) {
      await deliver(app, issueAlert(`breaker-${n}`, { culprit: `c${n}` }));
      await approvalFor(app, `breaker-${n}`);
    }
    expect(stats.calls).toBe(5);
    expect(app.services.analyzer.breakerState()).toBe('open');
    const last = await approvalFor(app, 'breaker-7');
    expect(last.metadata).toMatchObject({ llm_provider: 'pending', llm_confidence: 0 });
    expect(last.description).toContain('Analysis pending');
    expect((await app.inject('/metrics')).body).toMatch(
      /alert_chain_failure_total\{source="errtracker"\} 5/,
    );
  });

  it('closes the breaker again after the open period when a call succeeds', async () => {
    let failing = true;
    const { analyzer } = controlledAnalyzer(async () => {
      if (failing) throw new Error('down');
      return ok;
    });
    const { app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false' },
      analyzer,
      resilience: { openMs: 200 },
    });
    for (let n = 1; n <= 5; n += 1) {
      await deliver(app, issueAlert(`reopen-${n}`, { culprit: `c${n}` }));
      await approvalFor(app, `reopen-${n}`);
    }
    expect(app.services.analyzer.breakerState()).toBe('open');
    failing = false;
    await new Promise((resolve) => setTimeout(resolve, 250));
    await deliver(app, issueAlert('reopen-6'));
    expect((await approvalFor(app, 'reopen-6')).metadata.llm_provider).toBe('controlled');
    expect(app.services.analyzer.breakerState()).toBe('closed');
  });

  it('runs at most 3 analyses at once; the others wait', async () => {
    const { analyzer, stats } = controlledAnalyzer(
      () => new Promise((resolve) => setTimeout(() => resolve(ok), 150)),
    );
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' }, analyzer });
    for (let n = 1; n <= 8; n += 1)
      await deliver(app, issueAlert(`conc-${n}`, { culprit: `c${n}` }));
    for (let n = 1; n <= 8; n += 1) await approvalFor(app, `conc-${n}`);
    expect(stats.calls).toBe(8);
    expect(stats.maxRunning).toBe(3);
  });

  it('gives up on an analysis that passes the timeout and aborts it', async () => {
    let aborted = false;
    const { analyzer } = controlledAnalyzer(
      (signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    );
    const { app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false' },
      analyzer,
      resilience: { timeoutMs: 100 },
    });
    await deliver(app, issueAlert('slow-1'));
    const approval = await approvalFor(app, 'slow-1');
    expect(approval.metadata.llm_provider).toBe('pending');
    expect(aborted).toBe(true);
  });
});

describe('repair for a diagnosed error', () => {
  it('stores the failure signature and matches a playbook by it', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    await deliver(app, issueAlert('signature-1'));
    const approval = await approvalFor(app, 'signature-1');
    expect(approval.metadata.error_signature).toBe('pool-exhausted');
    const triggered = await waitFor(async () => {
      const items = (await app.inject(`/api/v1/operation-log?approval_id=${approval.id}`)).json()
        .items as Json[];
      return items.find((entry) => entry.type === 'AUTO_REPAIR_TRIGGERED');
    });
    expect(triggered.context.decision.playbook).toMatchObject({ id: expect.any(String) });
    expect(triggered.context.decision.similarity_score).toBe(0.9);
  });
});
