import { signedJson } from '../lib/signing.js';
import { CHAOS_SECRET } from './cluster.js';

export interface Answer {
  status: number;
  /** 0 when the request failed without an answer (refused, reset, timed out). */
  body: unknown;
  ms: number;
  error?: string;
}

/** One request with its answer and how long it took; never throws. */
export async function send(
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  timeoutMs = 15_000,
): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    return { status: response.status, body, ms: performance.now() - started };
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    return {
      status: 0,
      body: undefined,
      ms: performance.now() - started,
      error: cause?.message ?? (error as Error).message,
    };
  }
}

/** A flat alert, signed with the cluster's webhook secret, to `/webhooks/alerts`. */
export function postAlert(baseUrl: string, alert: Record<string, unknown>): Promise<Answer> {
  const { body, headers } = signedJson(CHAOS_SECRET, alert);
  return send(`${baseUrl}/api/v1/webhooks/alerts`, { body, headers });
}

export function postSignal(baseUrl: string, signal: Record<string, unknown>): Promise<Answer> {
  const { body, headers } = signedJson(CHAOS_SECRET, signal);
  return send(`${baseUrl}/api/v1/webhooks/signals`, { body, headers });
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` at once, in order of i. */
export async function inParallel<T>(
  count: number,
  concurrency: number,
  work: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Counts answers by status (0 for no answer). */
export function byStatus(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

export function describeStatuses(answers: Answer[]): string {
  return Object.entries(byStatus(answers))
    .map(([status, count]) => `${count} × ${status === '0' ? 'no answer' : status}`)
    .join(', ');
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Polls until `probe` is true or `timeoutMs` passes; resolves with the time it took, or -1. */
export async function within(
  timeoutMs: number,
  probe: () => Promise<boolean>,
  intervalMs = 200,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) return -1;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
