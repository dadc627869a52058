import { describe, expect, it } from 'vitest';
import type { TypedAlert } from '../../src/features/intake/converge-types.js';
import type { FlatAlert } from '../../src/features/intake/normalize-alert.js';
import { silenceLabels } from '../../src/features/intake/silence-labels.js';

const flat = (labels: Record<string, string>): FlatAlert => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  source: 'webhook',
  target_resource: 'api-7d9f8b6c5-x2x4z',
  namespace: 'payments',
  workload: 'api',
  message: '',
  labels,
  annotations: {},
  status: 'firing',
});

const typed = {
  alertName: 'KubePodCrashLooping',
  namespace: 'payments',
  alertType: 'pod_crash_loop',
  workload: 'api',
} as TypedAlert;

describe('silenceLabels (CONTRACT, Silences: the labels of a flat alert)', () => {
  it('are its labels plus alertname, severity, namespace, alert_type and workload', () => {
    expect(silenceLabels(flat({ team: 'checkout', env: 'prod' }), typed)).toEqual({
      team: 'checkout',
      env: 'prod',
      alertname: 'KubePodCrashLooping',
      severity: 'warning',
      namespace: 'payments',
      alert_type: 'pod_crash_loop',
      workload: 'api',
    });
  });

  it("let the alert's own fields win over labels of the same name, and leave the labels alone", () => {
    const labels = { namespace: 'other', severity: 'critical', workload: 'db', team: 'x' };
    const result = silenceLabels(flat(labels), typed);
    expect(result).toMatchObject({ namespace: 'payments', severity: 'warning', workload: 'api' });
    expect(labels).toEqual({ namespace: 'other', severity: 'critical', workload: 'db', team: 'x' });
  });

  it('keep a label named __proto__ as a label, not as the prototype', () => {
    const labels = JSON.parse('{"__proto__": "x", "constructor": "y"}') as Record<string, string>;
    const result = silenceLabels(flat(labels), typed);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(Object.entries(result)).toContainEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(result.constructor).toBe('y');
  });
});
