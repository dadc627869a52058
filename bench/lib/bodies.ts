import { type SignedRequest, signedJson } from './signing.js';

const SEVERITIES = ['warning', 'critical', 'info'] as const;
const PODS = ['api-7d9f8b6c5-x2x4z', 'api-7d9f8b6c5-q8w2n', 'worker-5c8d7f9b4-k7m2p', 'db-0'];

/**
 * Signal bodies for the signal path and the bare baseline: a few workloads and severities,
 * so the in-process consumer does a realistic mix of converging and recording.
 */
export function signalRequests(secret: string, count = 32): SignedRequest[] {
  return Array.from({ length: count }, (_, i) =>
    signedJson(secret, {
      source: 'bench',
      alert_name: 'KubePodCrashLooping',
      severity: SEVERITIES[i % SEVERITIES.length],
      target: PODS[i % PODS.length],
      namespace: 'bench',
      message: `Back-off restarting failed container (bench ${i})`,
    }),
  );
}

/** The one flat alert of the converged path: every request after the first only raises hit_count. */
export function convergedAlertRequest(secret: string): SignedRequest {
  return signedJson(secret, {
    alert_name: 'KubePodCrashLooping',
    severity: 'warning',
    namespace: 'bench',
    target_resource: 'api-7d9f8b6c5-x2x4z',
  });
}

/** Fingerprints in the wide converged run: an Alertmanager group's worth of alerts. */
export const WIDE_FINGERPRINTS = 50;

/**
 * The converged alert of `WIDE_FINGERPRINTS` workloads: rotated across the connections, each
 * opens its incident once and converges on it after, so a batch joins many fingerprints.
 */
export function wideConvergedRequests(secret: string): SignedRequest[] {
  return Array.from({ length: WIDE_FINGERPRINTS }, (_, i) =>
    signedJson(secret, {
      alert_name: 'KubePodCrashLooping',
      severity: 'warning',
      namespace: 'bench',
      target_resource: `wide${i}`,
    }),
  );
}

function newAlertBody(i: number) {
  // No dash: no Kubernetes-suffix rule can strip it, so every target is its own workload,
  // its own fingerprint, and therefore its own incident.
  return {
    alert_name: 'KubePodCrashLooping',
    severity: 'warning',
    namespace: 'bench',
    target_resource: `svc${i}`,
  };
}

/**
 * Distinct pre-signed new-alert bodies, handed out once each across all connections.
 * Signing happens up front so the load generator spends its CPU on sending; should a run
 * outlast the pool, further bodies are signed on the fly rather than repeated.
 */
export function newAlertSequence(secret: string, poolSize: number) {
  const pool = Array.from({ length: poolSize }, (_, i) => signedJson(secret, newAlertBody(i)));
  let used = 0;
  return {
    next(): SignedRequest {
      const i = used++;
      return pool[i] ?? signedJson(secret, newAlertBody(i));
    },
    used: () => used,
    poolSize,
  };
}
