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
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const collect = () => metrics.readSignalBacklog?.();
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
  };
  return metrics;
}
