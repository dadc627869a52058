import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  applyOverlay,
  OVERLAY_SOURCES,
  OVERLAY_TIMEOUT_BLOCKER,
  type OverlayOutcome,
  RUNTIME_TRUTH_SOURCES,
} from '../../src/features/readbacks/priority-overlay.js';
import { startUpstream, type Upstream } from '../helpers/upstreams.js';
import { AGENTS, copyExamples, readbackApp, readbackDir } from './readback-helpers.js';

const URL = `${AGENTS}/platform-priority-work-order-readback`;
const workOrder = {
  summary: { current_priority: 'P0' },
  rollups: { p0_open: 1 },
  mainline_execution_state: { lane: 'recovery' },
  active_blockers: ['restore_test_pending', OVERLAY_TIMEOUT_BLOCKER],
};

/** spec, Priority work order overlay fields: every row, as [location, field]. */
const FIELDS = [
  ['summary', 'priority_work_order_live_overlay_status'],
  ['summary', 'priority_work_order_live_overlay_included'],
  ['summary', 'priority_work_order_live_overlay_timeout_seconds'],
  ['summary', 'priority_work_order_live_overlay_error_type'],
  ['summary', 'priority_work_order_runtime_truth_sources'],
  ['rollups', 'priority_work_order_live_overlay_degraded'],
  ['mainline_execution_state', 'priority_work_order_live_overlay_degraded'],
  ['mainline_execution_state', 'priority_work_order_runtime_truth_source'],
  ['mainline_execution_state', 'priority_work_order_live_overlay_next_action'],
] as const;

function fieldsOf(document: Record<string, Record<string, unknown>>) {
  return Object.fromEntries(
    FIELDS.map(([where, field]) => [`${where}.${field}`, document[where]?.[field]]),
  );
}

const OUTCOMES: Array<[string, OverlayOutcome, Record<string, unknown>, string[]]> = [
  [
    'ready',
    { mode: 'ready', timeoutMs: 3000, sources: [] },
    {
      'summary.priority_work_order_live_overlay_status': 'ready',
      'summary.priority_work_order_live_overlay_included': true,
      'summary.priority_work_order_live_overlay_timeout_seconds': 3,
      'summary.priority_work_order_live_overlay_error_type': null,
      'summary.priority_work_order_runtime_truth_sources': null,
      'rollups.priority_work_order_live_overlay_degraded': false,
      'mainline_execution_state.priority_work_order_live_overlay_degraded': false,
      'mainline_execution_state.priority_work_order_runtime_truth_source': null,
      'mainline_execution_state.priority_work_order_live_overlay_next_action': null,
    },
    ['restore_test_pending'],
  ],
  [
    'delegated',
    { mode: 'delegated' },
    {
      'summary.priority_work_order_live_overlay_status': 'delegated_to_dedicated_readbacks',
      'summary.priority_work_order_live_overlay_included': false,
      'summary.priority_work_order_live_overlay_timeout_seconds': null,
      'summary.priority_work_order_live_overlay_error_type': null,
      'summary.priority_work_order_runtime_truth_sources': RUNTIME_TRUTH_SOURCES,
      'rollups.priority_work_order_live_overlay_degraded': false,
      'mainline_execution_state.priority_work_order_live_overlay_degraded': false,
      'mainline_execution_state.priority_work_order_runtime_truth_source':
        'dedicated_runtime_readbacks',
      'mainline_execution_state.priority_work_order_live_overlay_next_action': null,
    },
    ['restore_test_pending'],
  ],
  [
    'degraded',
    {
      mode: 'degraded',
      timeoutMs: 1500,
      errorType: 'TimeoutError',
      timedOut: ['agent-autonomous-runtime-control'],
    },
    {
      'summary.priority_work_order_live_overlay_status': 'degraded_timeout',
      'summary.priority_work_order_live_overlay_included': false,
      'summary.priority_work_order_live_overlay_timeout_seconds': 1.5,
      'summary.priority_work_order_live_overlay_error_type': 'TimeoutError',
      'summary.priority_work_order_runtime_truth_sources': null,
      'rollups.priority_work_order_live_overlay_degraded': true,
      'mainline_execution_state.priority_work_order_live_overlay_degraded': true,
      'mainline_execution_state.priority_work_order_runtime_truth_source': null,
      'mainline_execution_state.priority_work_order_live_overlay_next_action':
        expect.stringContaining('agent-autonomous-runtime-control'),
    },
    ['restore_test_pending', OVERLAY_TIMEOUT_BLOCKER],
  ],
];

describe('applyOverlay', () => {
  it.each(OUTCOMES)(
    '%s: every overlay field of the spec table',
    (_mode, outcome, fields, blockers) => {
      const document = applyOverlay(workOrder, outcome) as unknown as Record<
        string,
        Record<string, unknown>
      >;
      expect(fieldsOf(document)).toEqual(fields);
      expect(document.active_blockers).toEqual(blockers);
      // the committed fields stay
      expect(document.summary?.current_priority).toBe('P0');
      expect(document.mainline_execution_state?.lane).toBe('recovery');
    },
  );

  it('names the four runtime truth sources of the spec', () => {
    expect(RUNTIME_TRUTH_SOURCES.map((path) => path.split('/').pop())).toEqual([
      'agent-autonomous-runtime-control',
      'agent-log-controlled-writeback-consumer-readback',
      'chatops-alert-learning-context-post-apply-verifier',
      'chatops-alert-monitoring-coverage-readback',
    ]);
  });
});

describe('the overlay over HTTP', () => {
  let delayMs = 0;
  let upstream: Upstream;
  const dir = readbackDir();
  beforeAll(async () => {
    upstream = await startUpstream(async () => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { body: { ok: true, latest_tick_at: new Date().toISOString(), ingested_last_5m: 5 } };
    });
    copyExamples(dir, upstream.url);
  });

  it('ready: merges the nine live sources of the spec', async () => {
    const { app } = await readbackApp({ dir });
    const body = (await app.inject(URL)).json();
    expect(body.summary.priority_work_order_live_overlay_status).toBe('ready');
    expect(body.summary.priority_work_order_live_overlay_timeout_seconds).toBe(3);
    const sources = body.priority_work_order_live_overlay.sources;
    expect(sources.map((s: { readback: string }) => s.readback)).toEqual([...OVERLAY_SOURCES]);
    expect(sources.every((s: { status: string }) => s.status === 'present')).toBe(true);
    expect(sources[0].source_status).toBe('no_action_needed');
    expect(body.active_blockers).toEqual(['registry_restore_test_pending']);
  });

  it('delegated: PRIORITY_OVERLAY_MODE=delegated calls no live source', async () => {
    const before = upstream.requests.length;
    const { app } = await readbackApp({ dir, env: { PRIORITY_OVERLAY_MODE: 'delegated' } });
    const body = (await app.inject(URL)).json();
    expect(body.summary.priority_work_order_live_overlay_status).toBe(
      'delegated_to_dedicated_readbacks',
    );
    expect(body.summary.priority_work_order_runtime_truth_sources).toEqual(RUNTIME_TRUTH_SOURCES);
    expect(body.mainline_execution_state.priority_work_order_runtime_truth_source).toBe(
      'dedicated_runtime_readbacks',
    );
    expect(upstream.requests.length).toBe(before);
  });

  it('degraded_timeout: a slow source past PRIORITY_OVERLAY_TIMEOUT_MS', async () => {
    delayMs = 2000;
    const { app } = await readbackApp({ dir, env: { PRIORITY_OVERLAY_TIMEOUT_MS: '250' } });
    const started = Date.now();
    const response = await app.inject(URL);
    const elapsed = Date.now() - started;
    delayMs = 0;
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(elapsed).toBeLessThan(1500);
    expect(body.summary.priority_work_order_live_overlay_status).toBe('degraded_timeout');
    expect(body.summary.priority_work_order_live_overlay_included).toBe(false);
    expect(body.summary.priority_work_order_live_overlay_timeout_seconds).toBe(0.25);
    expect(body.summary.priority_work_order_live_overlay_error_type).toBe('TimeoutError');
    expect(body.rollups.priority_work_order_live_overlay_degraded).toBe(true);
    expect(body.active_blockers).toContain(OVERLAY_TIMEOUT_BLOCKER);
    expect(body.priority_work_order_live_overlay.sources_timed_out).toEqual([
      'imgstore-registry-controlled-recovery-preflight',
      'marketdata-public-api-controlled-recovery-preflight',
    ]);
  });

  it('rejects a work order whose overlay sections are not objects (500)', async () => {
    const broken = readbackDir();
    copyExamples(broken, upstream.url);
    const { app } = await readbackApp({ dir: broken, env: { PRIORITY_OVERLAY_MODE: 'delegated' } });
    const { writeDoc } = await import('./readback-helpers.js');
    writeDoc(broken, 'platform-priority-work-order-readback', { summary: 'not an object' });
    expect((await app.inject(URL)).json()).toEqual({
      code: 'readback_invalid',
      detail: 'Invalid readback data: platform-priority-work-order-readback',
    });
  });
});

describe('overlay configuration', () => {
  it.each([
    [
      { PRIORITY_OVERLAY_MODE: 'sometimes' },
      /PRIORITY_OVERLAY_MODE: must be one of ready, delegated/,
    ],
    [{ PRIORITY_OVERLAY_TIMEOUT_MS: '0' }, /PRIORITY_OVERLAY_TIMEOUT_MS: must be a whole number/],
    [{ PRIORITY_OVERLAY_TIMEOUT_MS: '2.5' }, /PRIORITY_OVERLAY_TIMEOUT_MS/],
    [{ READBACK_PROBE_TIMEOUT_MS: 'soon' }, /READBACK_PROBE_TIMEOUT_MS/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('defaults to ready, 3 s, probes bounded at 5 s', () => {
    expect(loadConfig({})).toMatchObject({
      priorityOverlayMode: 'ready',
      priorityOverlayTimeoutMs: 3000,
      readbackProbeTimeoutMs: 5000,
    });
  });
});
