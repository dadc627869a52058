import autocannon from 'autocannon';
import {
  autocannonRequests,
  type LoadPlan,
  type LoadResult,
  latencyRecorder,
  percentile,
  statusCodesOf,
} from './load.js';

/**
 * autocannon in the two modes load.ts's measureLoad does not offer: a fixed overall rate
 * (the sustained-rate search) and a fixed number of requests (the incident storm). The
 * result has measureLoad's shape, so the report and the ratio code read it unchanged.
 */
export interface CannonOptions {
  connections: number;
  /** How long to send; ignored when `amount` is set. */
  seconds?: number;
  /** Requests in all, then stop (autocannon shares them out across the connections). */
  amount?: number;
  /**
   * Requests per second across all connections: autocannon's fixed-rate mode. Give `amount`
   * too (rate × seconds): a duration alone lets one more second's quota out at its end.
   */
  overallRate?: number;
}

export interface CannonResult extends LoadResult {
  /** Date.now() when the first request went out and when the last answer came back. */
  startedAt: number;
  lastAnswerAt: number;
}

export function cannon(
  baseUrl: string,
  plan: LoadPlan,
  options: CannonOptions,
): Promise<CannonResult> {
  // Our own latency list, as in measureLoad: autocannon's histogram has 1 ms buckets.
  const latencies = latencyRecorder();
  let firstError: string | undefined;
  const startedAt = Date.now();
  let lastAnswerAt = startedAt;
  return new Promise<CannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections: options.connections,
        duration: options.seconds ?? 10,
        amount: options.amount,
        overallRate: options.overallRate,
        requests: autocannonRequests(plan),
        timeout: 10,
      },
      (error, result) => {
        if (error) return reject(error);
        const sorted = latencies.sorted();
        const count = latencies.count();
        // autocannon paces per second: each second's quota goes out at the second's start, so
        // a paced send of `amount` that keeps up ends before amount/overallRate s; that
        // planned span, or longer if the target fell behind, is what the rate is over.
        const planned =
          options.amount && options.overallRate ? options.amount / options.overallRate : 0;
        const durationS = Math.max(planned, (lastAnswerAt - startedAt) / 1000);
        resolve({
          // Answers over the whole send, not autocannon's mean of whole seconds: a storm
          // lasts a fraction of a second more or less, and a paced step is short.
          rps: durationS > 0 ? count / durationS : 0,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          completed: count,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes: statusCodesOf(result),
          firstError,
          durationS,
          startedAt,
          lastAnswerAt,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      lastAnswerAt = Date.now();
      latencies.record(responseTime);
    });
    instance.on('reqError', (error: Error) => {
      firstError ??= error?.message ?? String(error);
    });
  });
}
