import { describe, expect, it } from 'vitest';
import { ALERT_NAME_TABLE } from '../../src/features/incidents/alert-type-table.js';
import { compileAlertTypeRules } from '../../src/features/intake/alert-type-rules.js';
import {
  ALERT_TYPES,
  type AlertTypeSubject,
  CUSTOM_ALERT_TYPE,
  lookupAlertName,
  resolveAlertType,
} from '../../src/features/intake/alert-types.js';

const rules = compileAlertTypeRules(
  {
    rules: [
      { id: 'by-name', type: 'latency', match: { alert_name: '^Checkout.*Slow$' } },
      { id: 'by-label', type: 'service_down', match: { labels: { team: 'payments' } } },
      { id: 'by-label-regex', type: 'capacity', match: { labels: { queue: '/^orders-\\d+$/' } } },
      { id: 'by-rule-id', type: 'error_rate', match: { rule_id: '4711' } },
      // also matches `CheckoutIsSlow`; listed later, so `by-name` wins for that one
      { id: 'shadowed', type: 'high_cpu', match: { alert_name: 'slow' } },
      {
        id: 'name-and-label',
        type: 'oom_killed',
        match: { alert_name: 'Memory', labels: { tier: 'db' } },
      },
    ],
  },
  'inline',
);

describe('resolveAlertType precedence', () => {
  // spec, Alert payload: rules, then the static table, then `custom`; an explicit type first
  it.each<[string, AlertTypeSubject, string, string]>([
    [
      'explicit alert_type wins over everything',
      { alert_type: 'my_type', rule_type: 'x', alert_name: 'KubePodCrashLooping' },
      'my_type',
      'payload',
    ],
    [
      'rule_type wins over rules and table',
      { rule_type: 'latency', alert_name: 'KubePodCrashLooping', rule_id: '4711' },
      'latency',
      'rule_type',
    ],
    [
      'a rule wins over the table',
      { alert_name: 'KubePodCrashLooping', rule_id: '4711' },
      'error_rate',
      'rule:by-rule-id',
    ],
    ['the table', { alert_name: 'KubePodCrashLooping' }, 'crash_loop', 'table:KubePodCrashLooping'],
    ['custom when nothing matches', { alert_name: 'SomethingOdd' }, CUSTOM_ALERT_TYPE, 'fallback'],
    ['custom without a name', {}, CUSTOM_ALERT_TYPE, 'fallback'],
    [
      'blank alert_type is ignored',
      { alert_type: '  ', alert_name: 'Watchdog' },
      'heartbeat',
      'table:Watchdog',
    ],
    [
      'blank rule_type is ignored',
      { rule_type: '', alert_name: 'TargetDown' },
      'target_down',
      'table:TargetDown',
    ],
    [
      'explicit values are trimmed, not rewritten',
      { alert_type: ' Crash_Loop ' },
      'Crash_Loop',
      'payload',
    ],
  ])('%s', (_case, alert, alertType, source) => {
    expect(resolveAlertType(alert, rules)).toEqual({ alertType, source });
  });
});

describe('resolveAlertType match rules', () => {
  it.each<[string, AlertTypeSubject, string]>([
    ['name regex, case-insensitive', { alert_name: 'checkoutIsSLOW' }, 'rule:by-name'],
    ['name regex anchored as written', { alert_name: 'xCheckoutSlow' }, 'rule:shadowed'],
    ['exact label', { alert_name: 'A', labels: { team: 'payments' } }, 'rule:by-label'],
    [
      'exact label is case-sensitive',
      { alert_name: 'A', labels: { team: 'Payments' } },
      'fallback',
    ],
    ['regex label', { alert_name: 'A', labels: { queue: 'orders-12' } }, 'rule:by-label-regex'],
    ['regex label not matching', { alert_name: 'A', labels: { queue: 'orders-x' } }, 'fallback'],
    ['rule_id', { alert_name: 'A', rule_id: '4711' }, 'rule:by-rule-id'],
    ['other rule_id', { alert_name: 'A', rule_id: '4712' }, 'fallback'],
    [
      'first match wins',
      { alert_name: 'CheckoutIsSlow', labels: { team: 'payments' } },
      'rule:by-name',
    ],
    [
      'all conditions must hold',
      { alert_name: 'HighMemoryUsage', labels: { tier: 'web' } },
      'table:HighMemoryUsage',
    ],
    [
      'all conditions hold',
      { alert_name: 'HighMemoryUsage', labels: { tier: 'db' } },
      'rule:name-and-label',
    ],
    ['missing label does not match', { alert_name: 'A', labels: {} }, 'fallback'],
  ])('%s', (_case, alert, source) => {
    expect(resolveAlertType(alert, rules).source).toBe(source);
  });

  it('no rules falls through to the table', () => {
    expect(resolveAlertType({ alert_name: 'HighLatency' }, [])).toEqual({
      alertType: 'latency',
      source: 'table:HighLatency',
    });
  });
});

describe('static table', () => {
  it.each(Object.entries(ALERT_NAME_TABLE))('%s maps into ALERT_TYPES', (name, alertType) => {
    expect(ALERT_TYPES).toContain(alertType);
    expect(resolveAlertType({ alert_name: name }, [])).toEqual({
      alertType,
      source: `table:${name}`,
    });
  });

  it.each([...ALERT_TYPES])('%s is used by at least one entry', (alertType) => {
    expect(Object.values(ALERT_NAME_TABLE)).toContain(alertType);
  });

  it.each([
    ['kubepodcrashlooping', 'KubePodCrashLooping'],
    ['KUBE_POD_CRASH_LOOPING', 'KubePodCrashLooping'],
    ['kube-pod-crash-looping', 'KubePodCrashLooping'],
    ['Kube Pod Crash Looping', 'KubePodCrashLooping'],
    ['pod-crash-looping', 'KubePodCrashLooping'],
    ['POD_NOT_READY', 'KubePodNotReady'],
    ['cpu-throttling-high', 'CPUThrottlingHigh'],
    ['high_5xx_rate', 'High5xxRate'],
    ['oom-killed', 'OOMKilled'],
    ['image.pull.back.off', 'ImagePullBackOff'],
  ])('%s finds %s', (input, entry) => {
    expect(lookupAlertName(input)?.name).toBe(entry);
  });

  it.each(['', 'CrashLoop', 'letTooManyPods', 'KubePodCrashLoopingX'])(
    '%j is not in the table',
    (input) => {
      expect(lookupAlertName(input)).toBeUndefined();
    },
  );
});
