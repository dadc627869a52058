import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The service's Prometheus metrics, one registry per app so instances never share counts. */
export interface Metrics {
  registry: Registry;
  /** spec, Events: "counters for alert chain success and failure (source errtracker)" */
  alertChainSuccess: Counter<'source'>;
  alertChainFailure: Counter<'source'>;
  /** spec, Events: "alerts processed (outcome incident_created)" */
  alertsProcessed: Counter<'outcome' | 'source'>;
  /** spec, Events: "anomalies with 24-hour frequency and escalation level" */
  anomalies: Counter<'escalation_level'>;
  anomalyFrequency24h: Histogram<'escalation_level'>;
  /** CONTRACT, Silences: firing alerts a silence muted. */
  alertsSilenced: Counter;
  signalsProduced: Counter<'severity'>;
  signalsConsumed: Counter<'outcome'>;
  /** CONTRACT, Signals under overload: signals accepted and not yet handled by the consumers. */
  signalsBacklog: Gauge;
  signalsOldestUnhandledAge: Gauge;
  /** Refreshes both signal gauges at each scrape; set by the intake feature, which owns them. */
  readSignalBacklog?: () => Promise<void>;
  httpRequestDuration: Histogram<'method' | 'route' | 'status_code'>;
  /** CONTRACT, Operator console: the gauges an operator graphs, counted in the database. */
  incidentsOpen: Gauge<'severity'>;
  approvalsPending: Gauge;
  outboxBacklog: Gauge;
  heartbeatsExpired: Gauge;
  /** Refreshes the four operator gauges at each scrape (operator-gauges.ts). */
  readOperatorGauges?: () => Promise<void>;
  jobsGivenUp: Counter<'job' | 'by'>;
}

/** The severities `incidents_open` always carries, 0 when there is none. */
export const INCIDENT_SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;

/** Said by every gauge that counts rows of the shared database. */
const GLOBAL =
  'read from the database at each scrape (a count not read within 1 s keeps its last value); ' +
  'a count over every replica, so all replicas report the same value';

export function createMetrics(): Metrics {
  const registry = new Registry();
  // The event-loop lag histogram samples on a timer: at its default 10 ms that timer alone
  // wakes an idle service 100 times a second. Ten samples a second still catch any real lag.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const registers = [registry];
  const collect = () => metrics.readSignalBacklog?.();
  const collectOperator = () => metrics.readOperatorGauges?.();
  const metrics: Metrics = {
    registry,
    alertChainSuccess: new Counter({
      name: 'alert_chain_success_total',
      help: 'Alerts that went through the whole chain (analysis, approval, card)',
      labelNames: ['source'],
      registers,
    }),
    alertChainFailure: new Counter({
      name: 'alert_chain_failure_total',
      help: 'Alerts whose chain failed at some step',
      labelNames: ['source'],
      registers,
    }),
    alertsProcessed: new Counter({
      name: 'alerts_processed_total',
      help: 'Alerts handled, by outcome (incident_created, converged, resolved_recorded)',
      labelNames: ['outcome', 'source'],
      registers,
    }),
    anomalies: new Counter({
      name: 'anomalies_total',
      help: 'Anomalies recorded, by escalation level (none, REPEAT, ESCALATE, PERMANENT_FIX)',
      labelNames: ['escalation_level'],
      registers,
    }),
    anomalyFrequency24h: new Histogram({
      name: 'anomaly_frequency_24h',
      help: '24-hour occurrence count of an anomaly key when it is recorded',
      labelNames: ['escalation_level'],
      buckets: [1, 2, 3, 5, 10, 20, 50, 100],
      registers,
    }),
    alertsSilenced: new Counter({
      name: 'alerts_silenced_total',
      help: 'Firing alerts muted by a silence (recorded, creating and changing nothing)',
      registers,
    }),
    signalsProduced: new Counter({
      name: 'signals_produced_total',
      help: 'Signals written to the platform:signals stream',
      labelNames: ['severity'],
      registers,
    }),
    signalsConsumed: new Counter({
      name: 'signals_consumed_total',
      help: 'Signals handled by the consumer, by outcome',
      labelNames: ['outcome'],
      registers,
    }),
    signalsBacklog: new Gauge({
      name: 'signals_backlog',
      help: 'Signals accepted onto platform:signals and not yet handled by the signal consumers',
      registers,
      collect,
    }),
    signalsOldestUnhandledAge: new Gauge({
      name: 'signals_oldest_unhandled_age_seconds',
      help: 'Age of the oldest signal not yet handled by the signal consumers (0 when none)',
      registers,
      collect,
    }),
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    incidentsOpen: new Gauge({
      name: 'incidents_open',
      help: `Incidents open or acknowledged (not resolved), by severity P0-P3; ${GLOBAL}`,
      labelNames: ['severity'],
      registers,
      collect: collectOperator,
    }),
    approvalsPending: new Gauge({
      name: 'approvals_pending',
      help: `Approvals waiting for a decision (status pending; a critical one may hold its first of two signatures); ${GLOBAL}`,
      registers,
      collect: collectOperator,
    }),
    outboxBacklog: new Gauge({
      name: 'outbox_backlog',
      help: `Follow-up jobs committed with their records whose job has not reported completion and was not given up: waiting to be handed to the job queue, queued, running, or handed over and waiting to be offered again; ${GLOBAL}`,
      registers,
      collect: collectOperator,
    }),
    heartbeatsExpired: new Gauge({
      name: 'heartbeats_expired',
      help: `Heartbeats whose expires_at passed without a beat (expired, or past due and not yet swept); ${GLOBAL}`,
      registers,
      collect: collectOperator,
    }),
    jobsGivenUp: new Counter({
      name: 'jobs_given_up_total',
      help:
        'Background jobs given up, by job name and by whom: queue (the job queue ran out of attempts; ' +
        'a follow-up job from the outbox is offered again later) or outbox (never completed after ' +
        '10 offers, or a payload no job can run: it is not run again). Counted by the replica that ' +
        'gave up: sum over replicas',
      labelNames: ['job', 'by'],
      registers,
    }),
  };
  for (const severity of INCIDENT_SEVERITIES) metrics.incidentsOpen.set({ severity }, 0);
  return metrics;
}
