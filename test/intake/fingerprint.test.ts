import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createFingerprinter,
  fingerprintAlert,
  workloadOf,
} from '../../src/features/intake/fingerprint.js';

describe('fingerprintAlert', () => {
  // CONTRACT, Alert webhook: first 32 hex characters of SHA-256 over `<namespace>:<workload>:<alert_type>`
  it.each([
    ['default', 'api', 'crash_loop', 'cde126cacbc9a979adb500d7a551eab1'],
    ['payments', 'checkout', 'latency', '3d568cab20eb1a6ddd959803dd4c769e'],
    ['', '', 'custom', '3fedbe4c7c5347f7bb9c4ab0e3196fb8'],
  ])('%s:%s:%s', (namespace, workload, alertType, expected) => {
    const computed = createHash('sha256')
      .update(`${namespace}:${workload}:${alertType}`)
      .digest('hex')
      .slice(0, 32);
    expect(computed).toBe(expected);
    expect(fingerprintAlert(namespace, workload, alertType)).toBe(expected);
  });

  it('differs when any part differs', () => {
    const base = fingerprintAlert('default', 'api', 'crash_loop');
    expect(fingerprintAlert('prod', 'api', 'crash_loop')).not.toBe(base);
    expect(fingerprintAlert('default', 'web', 'crash_loop')).not.toBe(base);
    expect(fingerprintAlert('default', 'api', 'oom_killed')).not.toBe(base);
  });

  it('stays the SHA-256 prefix when remembered, evicted, or too long to remember', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);
    const remembering = createFingerprinter();
    const part = fc.oneof(
      fc.constantFrom('api', 'db', ''),
      fc.string(),
      fc.string({ maxLength: 400 }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(part, part, part), { minLength: 1, maxLength: 50 }),
        (parts) => {
          // Each triple twice: the second answer comes from memory when the text is short.
          for (const [namespace, workload, type] of [...parts, ...parts]) {
            const expected = sha(`${namespace}:${workload}:${type}`);
            expect(remembering(namespace, workload, type)).toBe(expected);
            expect(fingerprintAlert(namespace, workload, type)).toBe(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
    // Far more distinct texts than are remembered, then the first again.
    for (let i = 0; i < 5000; i++) remembering('evict', `w${i}`, 'crash_loop');
    expect(remembering('evict', 'w0', 'crash_loop')).toBe(sha('evict:w0:crash_loop'));
  });
});

describe('workloadOf', () => {
  it.each<[string, string | undefined, string]>([
    ['Deployment pod', 'api-7d9f8b6c5d-x2x4k', 'api'],
    ['Deployment pod, short hash', 'checkout-service-5c9d8-bq2zr', 'checkout-service'],
    ['Deployment pod, dashed name', 'kube-state-metrics-66f9bd4b8c-v7xkd', 'kube-state-metrics'],
    ['DaemonSet pod', 'node-exporter-x7k2p', 'node-exporter'],
    ['Job pod', 'db-migrate-8zq5w', 'db-migrate'],
    ['CronJob pod', 'nightly-backup-28391520-rx7bt', 'nightly-backup'],
    ['CronJob job', 'nightly-backup-28391520', 'nightly-backup'],
    ['StatefulSet ordinal kept', 'postgres-0', 'postgres-0'],
    ['StatefulSet ordinal kept, two digits', 'kafka-12', 'kafka-12'],
    ['vowel word kept', 'redis-cache', 'redis-cache'],
    ['vowel word kept (5 letters)', 'ingress-nginx', 'ingress-nginx'],
    ['four characters kept', 'api-x7k2', 'api-x7k2'],
    ['six random characters alone kept', 'api-x7k2pq', 'api-x7k2pq'],
    ['upper case is not a generated suffix', 'api-X7K2P', 'api-X7K2P'],
    ['plain deployment name', 'api', 'api'],
    ['pod/ prefix dropped', 'pod/api-7d9f8b6c5d-x2x4k', 'api'],
    ['deployment/ prefix dropped', 'deployment/api', 'api'],
    ['group-qualified kind dropped', 'deployment.apps/api', 'api'],
    ['sts/ prefix dropped, ordinal kept', 'sts/postgres-1', 'postgres-1'],
    ['node/ prefix kept', 'node/worker-1', 'node/worker-1'],
    ['instance kept', '10.0.3.7:9100', '10.0.3.7:9100'],
    ['surrounding space trimmed', '  api-7d9f8b6c5d-x2x4k ', 'api'],
    ['empty', '', ''],
    ['whitespace', '   ', ''],
    ['undefined', undefined, ''],
  ])('%s: %j', (_case, target, workload) => {
    expect(workloadOf(target)).toBe(workload);
  });
});
