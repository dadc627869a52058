import type { Cluster } from './cluster.js';
import { type Answer, percentile, postAlert, postSignal, send, within } from './requests.js';

/** The one answer a signal may get while Redis is down, besides 200 (spec, Signals). */
export const REDIS_UNAVAILABLE = 'Failed to produce signal: Redis unavailable';
/** Words of the drivers that must never reach an answer's body. */
export const DRIVER_WORDS =
  /ioredis|ECONNREFUSED|ECONNRESET|Connection is closed|Stream isn't writeable|enableOfflineQueue|MaxRetriesPerRequest|terminating connection|administrator command|Connection terminated|the database system is|kysely|pg-pool|at Object\.|node_modules/i;

// A paced flow of signals and new alerts over the replicas, and a readiness sampler, both
// recording every answer with when it was sent: what the outage scenarios measure with.

export interface Sent {
  kind: 'signal' | 'alert';
  /** Index within its kind: the signal's or alert's target is `sig-${i}` / `alert-${i}`. */
  i: number;
  replica: number;
  severity?: string;
  /** performance.now() when sent and when answered. */
  at: number;
  end: number;
  answer: Answer;
}

export interface FlowOptions {
  signalsPerSecond: number;
  alertsPerSecond: number;
  signalNamespace: string;
  alertNamespace: string;
  /** Every how many signals one is `warning` (becomes an alert); the others are `info`. */
  warningEvery: number;
}

/** What the flow and the sampler use of a cluster: a single service passes `{ replicas: [it] }`. */
export type Replicas = Pick<Cluster, 'replicas'>;

/** A paced, open-loop flow: requests go out on schedule whether or not earlier ones answered. */
export class Flow {
  readonly sent: Sent[] = [];
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private running: Promise<void> | undefined;
  private signals = 0;
  private alerts = 0;

  constructor(
    private readonly cluster: Replicas,
    private readonly options: FlowOptions,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  private async loop() {
    const tickMs = 20;
    const started = performance.now();
    let ticks = 0;
    while (!this.stopped) {
      ticks += 1;
      const elapsed = (performance.now() - started) / 1000;
      // Catch up to the schedule (after a stall) but never burst more than a second's worth.
      const signalsDue = Math.min(
        Math.floor(elapsed * this.options.signalsPerSecond) - this.signals,
        this.options.signalsPerSecond,
      );
      const alertsDue = Math.min(
        Math.floor(elapsed * this.options.alertsPerSecond) - this.alerts,
        this.options.alertsPerSecond,
      );
      for (let k = 0; k < signalsDue; k += 1) this.sendSignal();
      for (let k = 0; k < alertsDue; k += 1) this.sendAlert();
      const next = started + ticks * tickMs;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  }

  private track(kind: Sent['kind'], i: number, replica: number, work: () => Promise<Answer>) {
    const at = performance.now();
    const done = work().then((answer) => {
      this.sent.push({ kind, i, replica, at, end: performance.now(), answer });
      this.inFlight.delete(done);
    });
    this.inFlight.add(done);
    return done;
  }

  private sendSignal() {
    const i = this.signals++;
    const replica = i % this.cluster.replicas.length;
    const severity = i % this.options.warningEvery === 0 ? 'warning' : 'info';
    const url = this.cluster.replicas[replica]!.url;
    const at = performance.now();
    const done = postSignal(url, {
      source: 'chaos',
      alert_name: 'HighLatency',
      target: `sig-${i}`,
      severity,
      namespace: this.options.signalNamespace,
      message: `chaos signal ${i}`,
    }).then((answer) => {
      this.sent.push({
        kind: 'signal',
        i,
        replica,
        severity,
        at,
        end: performance.now(),
        answer,
      });
      this.inFlight.delete(done);
    });
    this.inFlight.add(done);
  }

  private sendAlert() {
    const i = this.alerts++;
    const replica = i % this.cluster.replicas.length;
    const url = this.cluster.replicas[replica]!.url;
    void this.track('alert', i, replica, () =>
      postAlert(url, {
        alert_name: 'KubePodCrashLooping',
        severity: 'warning',
        namespace: this.options.alertNamespace,
        target_resource: `alert-${i}`,
      }),
    );
  }

  /** Stops sending and waits for every answer. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.all([...this.inFlight]);
    this.sent.sort((a, b) => a.at - b.at);
  }

  of(kind: Sent['kind']): Sent[] {
    return this.sent.filter((s) => s.kind === kind);
  }
}

export interface ReadySample {
  replica: number;
  at: number;
  end: number;
  status: number;
  body: unknown;
}

/** Polls every replica's `/readyz` every `everyMs` until stopped. */
export class ReadinessSampler {
  readonly samples: ReadySample[] = [];
  private stopped = false;
  private running: Promise<void>[] = [];

  constructor(
    private readonly cluster: Replicas,
    private readonly everyMs = 250,
  ) {}

  start(): void {
    this.running = this.cluster.replicas.map(async (replica, index) => {
      while (!this.stopped) {
        const at = performance.now();
        const answer = await send(`${replica.url}/api/v1/readyz`, {}, 5_000);
        this.samples.push({
          replica: index,
          at,
          end: performance.now(),
          status: answer.status,
          body: answer.body,
        });
        await new Promise((resolve) => setTimeout(resolve, this.everyMs));
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
  }

  /** Milliseconds from `from` until every replica's first 200 sent after `from`, or -1. */
  allReadyAfter(from: number): number {
    let latest = 0;
    for (let r = 0; r < this.cluster.replicas.length; r += 1) {
      const first = this.samples.find((s) => s.replica === r && s.at >= from && s.status === 200);
      if (!first) return -1;
      latest = Math.max(latest, first.end - from);
    }
    return latest;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const bodyText = (body: unknown) =>
  typeof body === 'string' ? body : JSON.stringify(body ?? null);
export const detailOf = (body: unknown) =>
  body && typeof body === 'object' ? (body as { detail?: unknown }).detail : undefined;
export const codeOf = (body: unknown) =>
  body && typeof body === 'object' ? (body as { code?: unknown }).code : undefined;

/** Distinct bodies (up to `limit`) among some answers, for a failed check's detail. */
export function distinctBodies(sent: Sent[], limit = 3): string {
  const seen = new Map<string, number>();
  for (const s of sent) {
    const key = `${s.answer.status || s.answer.error}: ${bodyText(s.answer.body).slice(0, 200)}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen.entries()]
    .slice(0, limit)
    .map(([key, count]) => `${count} × ${key}`)
    .join('; ');
}

export const latencies = (sent: Sent[]) =>
  sent.length === 0
    ? 'none'
    : `p50 ${percentile(
        sent.map((s) => s.answer.ms),
        50,
      ).toFixed(0)} ms, p99 ${percentile(
        sent.map((s) => s.answer.ms),
        99,
      ).toFixed(0)} ms, max ${Math.max(...sent.map((s) => s.answer.ms)).toFixed(0)} ms`;

/** The alerts answered 200 whose incident (target `alert-${i}`) is missing, and the count. */
export async function missingIncidents(cluster: Cluster, namespace: string, accepted: Sent[]) {
  const rows = await cluster.sql<{ target_resource: string; hit_count: number }>(
    'SELECT target_resource, hit_count FROM incidents WHERE namespace = $1',
    [namespace],
  );
  const byTarget = new Map(rows.map((row) => [row.target_resource, row.hit_count]));
  const missing = accepted.filter((s) => !byTarget.has(`alert-${s.i}`));
  const doubled = accepted.filter((s) => (byTarget.get(`alert-${s.i}`) ?? 0) > 1);
  return { incidents: rows.length, missing, doubled };
}

/** Which accepted signals have an outcome, and which `warning` ones counted twice. */
export async function signalHandling(cluster: Cluster, namespace: string, accepted: Sent[]) {
  const ids = accepted.map((s) => (s.answer.body as { message_id: string }).message_id);
  const outcomes = await cluster.sql<{ entry_id: string }>(
    'SELECT entry_id FROM signal_outcomes WHERE entry_id = ANY($1)',
    [ids],
  );
  const handled = new Set(outcomes.map((row) => row.entry_id));
  const incidents = await cluster.sql<{ target_resource: string; hit_count: number }>(
    'SELECT target_resource, hit_count FROM incidents WHERE namespace = $1',
    [namespace],
  );
  const hits = new Map(incidents.map((row) => [row.target_resource, row.hit_count]));
  const unhandled = accepted.filter((_s, index) => !handled.has(ids[index]!));
  // A `warning` signal raised an alert of its own target: hit count 1 when handled once.
  const twice = accepted.filter(
    (s) => s.severity === 'warning' && (hits.get(`sig-${s.i}`) ?? 0) > 1,
  );
  const warningWithoutIncident = accepted.filter(
    (s, index) => s.severity === 'warning' && handled.has(ids[index]!) && !hits.has(`sig-${s.i}`),
  );
  return { unhandled, twice, warningWithoutIncident };
}

/**
 * The outbox rows whose job has not reported completion now, and how long until every one
 * of them has. `relayed` counts those the queue had already taken: with a Redis restarted
 * empty they are lost from the queue and offered again only after the outbox's recheck.
 */
export async function watchOutboxLeftovers(cluster: Cluster) {
  const since = performance.now();
  const rows = await cluster.sql<{ job_id: string; relayed_at: number | null }>(
    'SELECT job_id, relayed_at FROM outbox WHERE completed_at IS NULL',
  );
  const ids = rows.map((row) => row.job_id);
  const relayed = rows.filter((row) => row.relayed_at !== null).length;
  let left = ids.length;
  const ms = await within(
    60_000,
    async () => {
      const [row] = await cluster.sql<{ waiting: string }>(
        'SELECT count(*) AS waiting FROM outbox WHERE completed_at IS NULL AND job_id = ANY($1)',
        [ids],
      );
      left = Number(row?.waiting ?? ids.length);
      return left === 0;
    },
    100,
  );
  return { waiting: ids.length, relayed, ms: ms < 0 ? -1 : performance.now() - since, left };
}

export function anyExited(cluster: Cluster): string[] {
  return cluster.replicas
    .filter((replica) => replica.child.hasExited())
    .map(
      (replica) =>
        `${replica.name}: ${replica.child.outputTail().split('\n').slice(-5).join(' | ')}`,
    );
}
