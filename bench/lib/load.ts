import autocannon from 'autocannon';
import type { SignedRequest } from './signing.js';

/**
 * Where request bodies come from. `rotate`: a small fixed set, every connection cycles
 * through it (autocannon encodes each request once, so the generator stays cheap).
 * `sequence`: a fresh request for every send, shared by all connections, for paths that
 * must never see the same body twice.
 */
export type RequestSource =
  | { kind: 'rotate'; requests: SignedRequest[] }
  | { kind: 'sequence'; next(): SignedRequest };

export interface LoadPlan {
  method: 'GET' | 'POST';
  path: string;
  source: RequestSource;
}

export interface LoadSettings {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  /** Mean of autocannon's per-second request counts. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  completed: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  firstError?: string;
  durationS: number;
}

export interface SampleResponse {
  status: number;
  body: string;
}

/** The first request of a plan, sent once with fetch so a 401 is caught before any load. */
export async function sendSample(baseUrl: string, plan: LoadPlan): Promise<SampleResponse> {
  const request = plan.source.kind === 'rotate' ? plan.source.requests[0] : plan.source.next();
  if (!request) throw new Error(`no request to send to ${plan.path}`);
  const response = await fetch(baseUrl + plan.path, {
    method: plan.method,
    headers: request.headers,
    body: plan.method === 'GET' ? undefined : request.body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: await response.text() };
}

/** The plan's requests as autocannon takes them (shared with sustained-load.ts). */
export function autocannonRequests(plan: LoadPlan): autocannon.Request[] {
  if (plan.source.kind === 'rotate') {
    return plan.source.requests.map((request) => ({
      method: plan.method,
      path: plan.path,
      headers: request.headers,
      body: request.body,
    }));
  }
  const { next } = plan.source;
  return [
    {
      method: plan.method,
      path: plan.path,
      setupRequest: (request) => {
        const signed = next();
        return { ...request, headers: { ...signed.headers }, body: signed.body };
      },
    },
  ];
}

export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

/**
 * Every response time of a run, in a growing array: autocannon's own histogram has
 * whole-millisecond buckets, and a bare server answers in less.
 */
export function latencyRecorder() {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  return {
    record(responseTime: number) {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
    },
    count: () => count,
    sorted: () => latencies.subarray(0, count).sort(),
  };
}

/** Answers per status code, from autocannon's result. */
export function statusCodesOf(result: autocannon.Result): Record<string, number> {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = stats.count ?? 0;
  }
  return statusCodes;
}

/** `connections` connections sending back to back for `seconds`; latencies of every response. */
export function measureLoad(
  baseUrl: string,
  plan: LoadPlan,
  connections: number,
  seconds: number,
): Promise<LoadResult> {
  const latencies = latencyRecorder();
  let firstError: string | undefined;
  return new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections,
        duration: seconds,
        requests: autocannonRequests(plan),
        timeout: 10,
      },
      (error, result) => {
        if (error) return reject(error);
        const sorted = latencies.sorted();
        resolve({
          rps: result.requests.average,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          completed: latencies.count(),
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes: statusCodesOf(result),
          firstError,
          durationS: result.duration,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.record(responseTime);
    });
    instance.on('reqError', (error: Error) => {
      firstError ??= error?.message ?? String(error);
    });
  });
}
