import { WIDE_FINGERPRINTS } from '../lib/bodies.js';
import type { Comparison, LatencyTarget } from '../lib/run-spec.js';

/**
 * The ratios and bounds (bench/README.md, Ratios and targets) over the runs of ./intake-runs.ts (and sustained-runs.ts):
 * against what the stack itself costs (the Fastify floor) and what going distributed costs a
 * replica, rather than against Alertmanager, which is reported beside them.
 */
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
    target: 0.35,
  },
  {
    label: 'new-alert ÷ converged (distributed)',
    numerator: 'new-alert-distributed',
    denominator: 'converged-distributed',
    target: 0.35,
  },
  // A batch that joins many incidents (an Alertmanager group) against one that joins one.
  {
    label: `converged over ${WIDE_FINGERPRINTS} fingerprints ÷ over one (embedded)`,
    numerator: 'converged-wide-embedded',
    denominator: 'converged-embedded',
  },
  {
    label: `converged over ${WIDE_FINGERPRINTS} fingerprints ÷ over one (distributed)`,
    numerator: 'converged-wide-distributed',
    denominator: 'converged-distributed',
  },
  {
    label: 'converged distributed ÷ converged embedded',
    numerator: 'converged-distributed',
    denominator: 'converged-embedded',
  },
  // Our own work on top of the framework: at most 30 % of what Fastify itself costs.
  {
    label: 'CPU per alert: converged embedded ÷ Fastify floor',
    numerator: 'converged-embedded',
    denominator: 'fastify-floor',
    metric: 'cpu',
    target: 1.3,
  },
  // A replica's price for going distributed: its own process, PostgreSQL and Redis apart.
  {
    label: 'service CPU per alert: converged distributed ÷ embedded',
    numerator: 'converged-distributed',
    denominator: 'converged-embedded',
    metric: 'serviceCpu',
    target: 1.25,
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
