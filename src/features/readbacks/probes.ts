import { type DocumentReader, isRecord } from './document-shape.js';

/**
 * HTTP(S) probes listed in a committed scorecard (spec, Readbacks: live, marketdata-public-api-
 * runtime-readback: "public HTTPS health, freshness and ingestion probes compared to a
 * committed scorecard"). GET only, concurrent, each bounded by its own timeout and the
 * caller's signal; a body is read up to 64 KiB and only the compared fields are reported.
 */
export const PROBE_KINDS = ['health', 'freshness', 'ingestion'] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];
const BODY_LIMIT = 64 * 1024;

export interface ProbeSpec {
  id: string;
  kind: ProbeKind;
  url: string;
  timeout_ms: number;
  expect: {
    status: number;
    max_latency_ms?: number;
    /** freshness: the body field holding an ISO time, and how old it may be */
    timestamp_field?: string;
    max_age_seconds?: number;
    /** ingestion: the body field holding a count, and its minimum */
    value_field?: string;
    min_value?: number;
  };
}

export interface CheckResult {
  check: string;
  expected: unknown;
  actual: unknown;
  passed: boolean;
}

export interface ProbeResult {
  id: string;
  kind: ProbeKind;
  url: string;
  passed: boolean;
  status_code: number | null;
  latency_ms: number;
  checks: CheckResult[];
  error: string | null;
}

export function probeSpecs(
  read: DocumentReader,
  holder: Record<string, unknown>,
  capMs: number,
): ProbeSpec[] {
  return read.objects(holder, 'probes').map((probe, i) => {
    const kind = read.text(probe, 'kind', `probes[${i}].kind`);
    if (!(PROBE_KINDS as readonly string[]).includes(kind))
      read.fail(`probes[${i}].kind is not one of ${PROBE_KINDS.join(', ')}`);
    const url = read.text(probe, 'url', `probes[${i}].url`);
    if (!/^https?:\/\//.test(url) || !URL.canParse(url))
      read.fail(`probes[${i}].url is not an http(s) URL`);
    const expect = read.object(probe, 'expect') ?? {};
    const optionalNumber = (key: string) =>
      expect[key] === undefined ? undefined : read.number(expect, key);
    return {
      id: read.text(probe, 'id', `probes[${i}].id`),
      kind: kind as ProbeKind,
      url,
      timeout_ms: Math.min(read.number(probe, 'timeout_ms', capMs), capMs),
      expect: {
        status: read.number(expect, 'status', 200),
        max_latency_ms: optionalNumber('max_latency_ms'),
        timestamp_field: read.optionalText(expect, 'timestamp_field'),
        max_age_seconds: optionalNumber('max_age_seconds'),
        value_field: read.optionalText(expect, 'value_field'),
        min_value: optionalNumber('min_value'),
      },
    };
  });
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= BODY_LIMIT) break;
  }
  return Buffer.concat(chunks).subarray(0, BODY_LIMIT).toString('utf8');
}

function fieldOf(body: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((value, key) => (isRecord(value) ? value[key] : undefined), body);
}

/** Pure: what the scorecard expects against what the probe saw. */
export function compareProbe(
  spec: ProbeSpec,
  status: number,
  latencyMs: number,
  body: unknown,
  nowMs: number,
): CheckResult[] {
  const { expect } = spec;
  const checks: CheckResult[] = [
    { check: 'status', expected: expect.status, actual: status, passed: status === expect.status },
  ];
  if (expect.max_latency_ms !== undefined) {
    checks.push({
      check: 'latency_ms',
      expected: `<= ${expect.max_latency_ms}`,
      actual: latencyMs,
      passed: latencyMs <= expect.max_latency_ms,
    });
  }
  if (expect.timestamp_field && expect.max_age_seconds !== undefined) {
    const value = fieldOf(body, expect.timestamp_field);
    const at =
      typeof value === 'string' || typeof value === 'number'
        ? new Date(value).getTime()
        : Number.NaN;
    const age = Number.isNaN(at) ? null : Math.round((nowMs - at) / 1000);
    checks.push({
      check: 'age_seconds',
      expected: `<= ${expect.max_age_seconds}`,
      actual: age,
      passed: age !== null && age <= expect.max_age_seconds,
    });
  }
  if (expect.value_field && expect.min_value !== undefined) {
    const value = fieldOf(body, expect.value_field);
    const number = typeof value === 'number' ? value : null;
    checks.push({
      check: expect.value_field,
      expected: `>= ${expect.min_value}`,
      actual: number,
      passed: number !== null && number >= expect.min_value,
    });
  }
  return checks;
}

/** CONTRACT, Access: one fetch per URL per 30 s, however many readers ask. */
export const PROBE_CACHE_MS = 30_000;
const PROBE_CACHE_ENTRIES = 1000;

/** What one fetch of a probe URL saw; compared with each scorecard's expectations later. */
type Observation =
  | { status: number; latencyMs: number; body: unknown; error?: undefined }
  | { error: string; latencyMs: number };

export interface ProbeCache {
  observe(url: string, timeoutMs: number): Promise<Observation>;
}

/**
 * Probe results per URL, kept 30 s: readback GETs are open to anyone, and each would
 * otherwise send its own requests out. Concurrent readers of a URL share one fetch.
 */
export function createProbeCache(now: () => number): ProbeCache {
  const entries = new Map<string, { at: number; observation: Promise<Observation> }>();
  return {
    observe(url, timeoutMs) {
      const hit = entries.get(url);
      if (hit && now() - hit.at < PROBE_CACHE_MS) return hit.observation;
      const observation = fetchProbe(url, timeoutMs);
      entries.delete(url);
      entries.set(url, { at: now(), observation });
      if (entries.size > PROBE_CACHE_ENTRIES) entries.delete(entries.keys().next().value as string);
      return observation;
    },
  };
}

/** Never rejects: a failure is an observation too. Bounded by its own timeout only. */
async function fetchProbe(url: string, timeoutMs: number): Promise<Observation> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await readBounded(response);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, latencyMs: Math.round(performance.now() - started), body };
  } catch (error) {
    const name = (error as Error).name;
    return {
      error: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : `unreachable: ${name}`,
      latencyMs: Math.round(performance.now() - started),
    };
  }
}

/** The shared fetch, or a timeout for this reader once its own signal gives up. */
function untilAborted(
  observation: Promise<Observation>,
  signal: AbortSignal,
): Promise<Observation> {
  if (signal.aborted) return Promise.resolve({ error: 'timeout', latencyMs: 0 });
  return new Promise((resolve) => {
    const onAbort = () => resolve({ error: 'timeout', latencyMs: 0 });
    signal.addEventListener('abort', onAbort, { once: true });
    void observation.then((seen) => {
      signal.removeEventListener('abort', onAbort);
      resolve(seen);
    });
  });
}

export async function runProbe(
  spec: ProbeSpec,
  context: { probes: ProbeCache; signal: AbortSignal; now(): number },
): Promise<ProbeResult> {
  const base = { id: spec.id, kind: spec.kind, url: spec.url };
  const seen = await untilAborted(
    context.probes.observe(spec.url, spec.timeout_ms),
    context.signal,
  );
  if (seen.error !== undefined) {
    return {
      ...base,
      passed: false,
      status_code: null,
      latency_ms: seen.latencyMs,
      checks: [],
      error: seen.error,
    };
  }
  const checks = compareProbe(spec, seen.status, seen.latencyMs, seen.body, context.now());
  return {
    ...base,
    passed: checks.every((c) => c.passed),
    status_code: seen.status,
    latency_ms: seen.latencyMs,
    checks,
    error: null,
  };
}

export function runProbes(
  specs: readonly ProbeSpec[],
  context: { probes: ProbeCache; signal: AbortSignal; now(): number },
): Promise<ProbeResult[]> {
  return Promise.all(specs.map((spec) => runProbe(spec, context)));
}
