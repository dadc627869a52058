import type { Comparison, LatencyTarget } from '../lib/run-spec.js';

/** The intake issue's ratios and bounds over the runs of ./intake-runs.ts (and sustained-runs.ts). */
export const intakeComparisons: Comparison[] = [
  {
    label: 'Fastify floor ÷ bare (ceiling of every service ratio)',
    numerator: 'fastify-floor',
    denominator: 'bare',
  },
  {
    label: 'new-alert ÷ converged (embedded)',
    numerator: 'new-alert-embedded',
    denominator: 'converged-embedded',
    target: 0.5,
  },
  {
    label: 'new-alert ÷ converged (distributed)',
    numerator: 'new-alert-distributed',
    denominator: 'converged-distributed',
    target: 0.5,
  },
  {
    label: 'converged distributed ÷ converged embedded',
    numerator: 'converged-distributed',
    denominator: 'converged-embedded',
    target: 0.8,
  },
  { label: 'signals ÷ bare (embedded)', numerator: 'signals-embedded', denominator: 'bare' },
  { label: 'signals ÷ bare (distributed)', numerator: 'signals-distributed', denominator: 'bare' },
  // The sustained runs come from bench/runs/sustained-runs.ts; n/a until they are run.
  {
    label: 'signals sustained ÷ bare (embedded)',
    numerator: 'signals-sustained-embedded',
    denominator: 'bare',
    target: 0.3,
  },
  {
    label: 'signals sustained ÷ bare (distributed)',
    numerator: 'signals-sustained-distributed',
    denominator: 'bare',
    target: 0.3,
  },
  {
    label: 'converged ÷ Alertmanager (embedded)',
    numerator: 'converged-embedded',
    denominator: 'alertmanager',
  },
  {
    label: 'converged ÷ Alertmanager (distributed)',
    numerator: 'converged-distributed',
    denominator: 'alertmanager',
  },
  {
    label: 'CPU per alert: converged embedded ÷ Alertmanager',
    numerator: 'converged-embedded',
    denominator: 'alertmanager',
    metric: 'cpu',
    target: 1.0,
  },
  // The floor does only HMAC, JSON.parse and a reply: no service can spend less CPU per
  // request in Fastify, so this bounds the converged CPU ratio from below.
  {
    label: 'CPU per request: Fastify floor ÷ Alertmanager (floor of the CPU ratio)',
    numerator: 'fastify-floor',
    denominator: 'alertmanager',
    metric: 'cpu',
  },
  {
    label: 'CPU per alert: converged distributed (incl. PG, Redis) ÷ Alertmanager',
    numerator: 'converged-distributed',
    denominator: 'alertmanager',
    metric: 'cpu',
  },
];

/** Opening an incident may cost throughput, but not responsiveness at the usual 50 connections. */
export const intakeLatencyTargets: LatencyTarget[] = (['embedded', 'distributed'] as const).map(
  (mode) => ({
    label: `new-alert p99 at 50 connections (${mode})`,
    run: `new-alert-${mode}`,
    maxP99Ms: 100,
    connections: 50,
  }),
);
