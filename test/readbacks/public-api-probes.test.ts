import { beforeAll, describe, expect, it } from 'vitest';
import {
  compareProbe,
  PROBE_CACHE_MS,
  type ProbeSpec,
} from '../../src/features/readbacks/probes.js';
import {
  MAX_ACTION_CANDIDATES,
  selectCandidates,
} from '../../src/features/readbacks/recovery-preflight.js';
import { type TestApp, TestClock } from '../helpers/build-app.js';
import { startUpstream } from '../helpers/upstreams.js';
import { AGENTS, readbackApp, readbackDir, writeDoc } from './readback-helpers.js';

const NOW = Date.parse('2026-11-22T01:00:00Z');
const spec = (expect: ProbeSpec['expect']): ProbeSpec => ({
  id: 'p',
  kind: 'freshness',
  url: 'https://x',
  timeout_ms: 1000,
  expect,
});

describe('compareProbe', () => {
  it.each([
    ['status matches', { status: 200 }, 200, 10, {}, [true]],
    ['status differs', { status: 200 }, 503, 10, {}, [false]],
    ['latency within', { status: 200, max_latency_ms: 50 }, 200, 49, {}, [true, true]],
    ['latency over', { status: 200, max_latency_ms: 50 }, 200, 51, {}, [true, false]],
    [
      'fresh',
      { status: 200, timestamp_field: 'data.at', max_age_seconds: 60 },
      200,
      1,
      { data: { at: '2026-11-22T00:59:30Z' } },
      [true, true],
    ],
    [
      'stale',
      { status: 200, timestamp_field: 'data.at', max_age_seconds: 60 },
      200,
      1,
      { data: { at: '2026-11-22T00:50:00Z' } },
      [true, false],
    ],
    [
      'no timestamp',
      { status: 200, timestamp_field: 'at', max_age_seconds: 60 },
      200,
      1,
      {},
      [true, false],
    ],
    ['ingesting', { status: 200, value_field: 'n', min_value: 1 }, 200, 1, { n: 3 }, [true, true]],
    [
      'not ingesting',
      { status: 200, value_field: 'n', min_value: 1 },
      200,
      1,
      { n: 0 },
      [true, false],
    ],
  ] as const)('%s', (_name, expectation, status, latency, body, passed) => {
    expect(
      compareProbe(spec({ ...expectation }), status, latency, body, NOW).map((c) => c.passed),
    ).toEqual(passed);
  });
});

describe('selectCandidates', () => {
  const candidates = [
    { id: 'restart', risk_level: 'low', when_probe_fails: ['health'], description: undefined },
    {
      id: 'scale',
      risk_level: 'medium',
      when_probe_fails: ['health', 'latency'],
      description: undefined,
    },
    {
      id: 'failover',
      risk_level: 'critical',
      when_probe_fails: ['health'],
      description: undefined,
    },
    { id: 'reindex', risk_level: 'low', when_probe_fails: ['freshness'], description: undefined },
    { id: 'flush', risk_level: 'low', when_probe_fails: ['health'], description: undefined },
    { id: 'warm', risk_level: 'low', when_probe_fails: ['health'], description: undefined },
  ];
  it.each([
    [[], [], [], []],
    [['freshness'], ['reindex'], [], []],
    [['health'], ['restart', 'scale', 'flush'], ['warm'], ['failover']],
  ])(
    'failing %j proposes %j, defers %j, needs an owner for %j',
    (failing, proposed, deferred, owner) => {
      const selection = selectCandidates(candidates, failing);
      expect(selection.proposed.map((c) => c.id)).toEqual(proposed);
      expect(selection.proposed.length).toBeLessThanOrEqual(MAX_ACTION_CANDIDATES);
      expect(selection.proposed.every((c) => c.executes === false)).toBe(true);
      expect(selection.deferred_beyond_bound).toEqual(deferred);
      expect(selection.requires_owner.map((c) => c.id)).toEqual(owner);
    },
  );
});

describe('public-API runtime and recovery preflights over HTTP', () => {
  const answers: Record<string, { status?: number; body: unknown; delay?: number }> = {};
  const fetched = new Map<string, number>();
  const dir = readbackDir();
  // Probe results are kept 30 s; each test that changes an answer moves past that first.
  const clock = new TestClock(Date.now());
  let app: TestApp['app'];
  beforeAll(async () => {
    const upstream = await startUpstream(async (request) => {
      fetched.set(request.url, (fetched.get(request.url) ?? 0) + 1);
      const answer = answers[request.url] ?? { status: 404, body: {} };
      if (answer.delay) await new Promise((resolve) => setTimeout(resolve, answer.delay));
      return answer;
    });
    ({ app } = await readbackApp({ dir, clock, env: { READBACK_PROBE_TIMEOUT_MS: '300' } }));
    writeDoc(dir, 'marketdata-public-api-runtime-readback', {
      scorecard_id: 'slo-q4',
      probes: [
        { id: 'health', kind: 'health', url: `${upstream.url}/healthz`, expect: { status: 200 } },
        {
          id: 'freshness',
          kind: 'freshness',
          url: `${upstream.url}/fresh`,
          expect: { status: 200, timestamp_field: 'latest_tick_at', max_age_seconds: 300 },
        },
        {
          id: 'ingestion',
          kind: 'ingestion',
          url: `${upstream.url}/ingest`,
          timeout_ms: 60_000,
          expect: { status: 200, value_field: 'ingested_last_5m', min_value: 1 },
        },
      ],
    });
  });

  it('probes every endpoint concurrently and compares each to the scorecard', async () => {
    answers['/healthz'] = { body: { ok: true } };
    answers['/fresh'] = { body: { latest_tick_at: new Date(Date.now() - 3600_000).toISOString() } };
    answers['/ingest'] = { body: { ingested_last_5m: 42 } };
    const body = (await app.inject(`${AGENTS}/marketdata-public-api-runtime-readback`)).json();
    expect(body.status).toBe('degraded');
    expect(body.summary).toEqual({ probes: 3, passed: 2, failed: ['freshness'] });
    const freshness = body.probes.find((p: { id: string }) => p.id === 'freshness');
    expect(freshness.checks[1]).toMatchObject({ check: 'age_seconds', passed: false });
    // the probe's own answer is not echoed, only the compared fields
    expect(JSON.stringify(body)).not.toContain('ingested_last_5m":42');
  });

  it('fetches each probe URL once per 30 s however many readers ask', async () => {
    answers['/healthz'] = { body: { ok: true } };
    answers['/ingest'] = { body: { ingested_last_5m: 42 } };
    clock.advance(PROBE_CACHE_MS);
    fetched.clear();
    const url = `${AGENTS}/marketdata-public-api-runtime-readback`;
    const readers = await Promise.all(Array.from({ length: 20 }, () => app.inject(url)));
    expect(readers.every((reader) => reader.statusCode === 200)).toBe(true);
    expect(Object.fromEntries(fetched)).toEqual({ '/healthz': 1, '/fresh': 1, '/ingest': 1 });
    clock.advance(PROBE_CACHE_MS - 1);
    await app.inject(url);
    expect(fetched.get('/healthz')).toBe(1);
    clock.advance(1);
    await app.inject(url);
    expect(fetched.get('/healthz')).toBe(2);
  });

  it('bounds each probe by READBACK_PROBE_TIMEOUT_MS, even when the scorecard asks for longer', async () => {
    answers['/ingest'] = { body: { ingested_last_5m: 1 }, delay: 1500 };
    clock.advance(PROBE_CACHE_MS);
    const started = Date.now();
    const body = (await app.inject(`${AGENTS}/marketdata-public-api-runtime-readback`)).json();
    expect(Date.now() - started).toBeLessThan(1200);
    const ingestion = body.probes.find((p: { id: string }) => p.id === 'ingestion');
    expect(ingestion).toMatchObject({ passed: false, error: 'timeout', status_code: null });
    answers['/ingest'] = { body: { ingested_last_5m: 1 } };
  });

  it('the public-API preflight falls back to the scorecard probes and proposes bounded candidates', async () => {
    answers['/healthz'] = { status: 503, body: {} };
    clock.advance(PROBE_CACHE_MS);
    writeDoc(dir, 'marketdata-public-api-controlled-recovery-preflight', {
      target_selector: { service: 'public-api' },
      action_candidates: [
        { id: 'scale-out-api', risk_level: 'medium', when_probe_fails: ['health'] },
        { id: 'fail-over-region', risk_level: 'critical', when_probe_fails: ['health'] },
      ],
      rollback: { strategy: 'previous release' },
      verifier: { ref: 'readback:agent-log-post-write-verifier-dry-run' },
      learning_writeback_contract: { raw_logs_allowed: false },
    });
    const body = (
      await app.inject(`${AGENTS}/marketdata-public-api-controlled-recovery-preflight`)
    ).json();
    expect(body.status).toBe('candidates_ready');
    expect(body.action_candidates.proposed.map((c: { id: string }) => c.id)).toEqual([
      'scale-out-api',
    ]);
    expect(body.action_candidates.requires_owner).toEqual([
      { id: 'fail-over-region', risk_level: 'critical' },
    ]);
    expect(body.source_diff).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ probe: 'health', check: 'status', expected: 200, actual: 503 }),
      ]),
    );
    expect(body).toMatchObject({
      executes: false,
      workflow_triggered: false,
      rollback: { strategy: 'previous release' },
    });
  });

  it('the registry preflight without a committed document says so (200)', async () => {
    const body = (
      await app.inject(`${AGENTS}/imgstore-registry-controlled-recovery-preflight`)
    ).json();
    expect(body).toMatchObject({
      status: 'not_configured',
      preflight_source: { status: 'missing' },
      executes: false,
    });
  });

  it.each([
    [{ probes: [{ id: 'x', kind: 'health', url: 'ftp://nope' }] }],
    [{ probes: [{ id: 'x', kind: 'smoke', url: 'https://example.com' }] }],
    [{ probes: 'health' }],
  ])('an unusable scorecard %j is a 500', async (scorecard) => {
    writeDoc(dir, 'marketdata-public-api-runtime-readback', scorecard);
    const answer = await app.inject(`${AGENTS}/marketdata-public-api-runtime-readback`);
    expect(answer.statusCode).toBe(500);
  });
});
