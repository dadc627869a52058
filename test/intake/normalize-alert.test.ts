import { describe, expect, it } from 'vitest';
import {
  type FlatAlert,
  fromAlertmanager,
  isAlertmanagerBody,
} from '../../src/features/intake/normalize-alert.js';

/** Shaped like the webhook in the Alertmanager docs (configuration, `<webhook_config>`). */
const webhook = {
  version: '4',
  groupKey: '{}:{alertname="KubePodCrashLooping"}',
  truncatedAlerts: 0,
  status: 'firing',
  receiver: 'alert-intake',
  groupLabels: { alertname: 'KubePodCrashLooping' },
  commonLabels: {
    alertname: 'KubePodCrashLooping',
    namespace: 'shop',
    severity: 'warning',
    prometheus: 'monitoring/k8s',
  },
  commonAnnotations: {
    runbook_url: 'https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping',
  },
  externalURL: 'http://alertmanager.monitoring:9093',
  alerts: [
    {
      status: 'firing',
      labels: {
        alertname: 'KubePodCrashLooping',
        namespace: 'shop',
        pod: 'cart-7d9f8b6c5d-x2x4k',
        container: 'cart',
        severity: 'critical',
        prometheus: 'monitoring/k8s',
      },
      annotations: {
        description:
          'Pod shop/cart-7d9f8b6c5d-x2x4k (cart) is in waiting state (reason: "CrashLoopBackOff").',
        summary: 'Pod is crash looping.',
      },
      startsAt: '2024-05-01T08:00:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.monitoring:9090/graph?g0.expr=...',
      fingerprint: 'a1b2c3d4e5f60718',
    },
    {
      status: 'resolved',
      labels: {
        alertname: 'KubePodCrashLooping',
        namespace: 'shop',
        pod: 'search-0',
        severity: 'warning',
        prometheus: 'monitoring/k8s',
      },
      annotations: { description: 'Pod shop/search-0 is in waiting state.' },
      startsAt: '2024-05-01T07:00:00.000Z',
      endsAt: '2024-05-01T07:30:00.000Z',
      generatorURL: 'http://prometheus.monitoring:9090/graph?g0.expr=...',
      fingerprint: '0f1e2d3c4b5a6978',
    },
  ],
};

describe('isAlertmanagerBody', () => {
  it.each<[string, unknown, boolean]>([
    ['docs example', webhook, true],
    ['alerts without version', { alerts: [] }, true],
    ['flat alert', { alert_name: 'X', severity: 'critical' }, false],
    ['alerts not a list', { alerts: {} }, false],
    ['null', null, false],
    ['array', [{ alerts: [] }], false],
    ['string', 'alerts', false],
  ])('%s → %s', (_case, body, expected) => {
    expect(isAlertmanagerBody(body)).toBe(expected);
  });
});

describe('fromAlertmanager', () => {
  const { alerts, skipped } = fromAlertmanager(webhook);

  it('flattens each alert, firing and resolved', () => {
    expect(skipped).toBe(0);
    expect(alerts).toHaveLength(2);
    expect(alerts[0]).toEqual<FlatAlert>({
      alert_name: 'KubePodCrashLooping',
      severity: 'critical',
      source: 'alertmanager',
      target_resource: 'cart-7d9f8b6c5d-x2x4k',
      namespace: 'shop',
      workload: 'cart',
      message: 'Pod is crash looping.',
      // the alert's own severity wins over the group's
      labels: {
        alertname: 'KubePodCrashLooping',
        namespace: 'shop',
        pod: 'cart-7d9f8b6c5d-x2x4k',
        container: 'cart',
        severity: 'critical',
        prometheus: 'monitoring/k8s',
      },
      // commonAnnotations merged in
      annotations: {
        runbook_url: webhook.commonAnnotations.runbook_url,
        description:
          'Pod shop/cart-7d9f8b6c5d-x2x4k (cart) is in waiting state (reason: "CrashLoopBackOff").',
        summary: 'Pod is crash looping.',
      },
      status: 'firing',
      starts_at: '2024-05-01T08:00:00.000Z',
      generator_url: 'http://prometheus.monitoring:9090/graph?g0.expr=...',
    });
    expect(alerts[1]).toMatchObject({
      status: 'resolved',
      target_resource: 'search-0',
      workload: 'search-0',
      severity: 'warning',
      message: 'Pod shop/search-0 is in waiting state.',
    });
  });

  it('keeps a common or own label named __proto__ as a label, never as the prototype', () => {
    const body = JSON.parse(
      '{"commonLabels": {"__proto__": "common", "team": "a"}, "commonAnnotations": {"__proto__": "c"},' +
        ' "alerts": [{"labels": {"alertname": "A"}}, {"labels": {"__proto__": "own"}}]}',
    ) as unknown;
    const [first, second] = fromAlertmanager(body).alerts;
    for (const record of [first!.labels, second!.labels, first!.annotations]) {
      expect(Object.hasOwn(record, '__proto__')).toBe(true);
      expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    }
    expect(Object.entries(first!.labels)).toContainEqual(['__proto__', 'common']);
    expect(first!.labels).toMatchObject({ team: 'a', alertname: 'A' });
    expect(Object.entries(second!.labels)).toContainEqual(['__proto__', 'own']);
  });

  it.each<[string, Record<string, unknown>, Partial<FlatAlert>]>([
    [
      'common labels fill in, own labels win',
      {
        commonLabels: { alertname: 'TargetDown', team: 'a', severity: 'info' },
        alerts: [{ labels: { team: 'b' } }],
      },
      {
        alert_name: 'TargetDown',
        severity: 'info',
        labels: { alertname: 'TargetDown', team: 'b', severity: 'info' },
      },
    ],
    [
      'status falls back to the group',
      { status: 'resolved', alerts: [{ labels: { alertname: 'A' } }] },
      { status: 'resolved' },
    ],
    [
      'own status wins',
      { status: 'resolved', alerts: [{ status: 'FIRING', labels: {} }] },
      { status: 'firing' },
    ],
    ['no status at all is firing', { alerts: [{ labels: {} }] }, { status: 'firing' }],
    [
      'defaults',
      { alerts: [{}] },
      {
        alert_name: '',
        severity: 'warning',
        namespace: 'default',
        target_resource: '',
        workload: '',
        message: '',
        labels: {},
        annotations: {},
      },
    ],
    [
      'target prefers pod over node',
      { alerts: [{ labels: { node: 'worker-1', pod: 'web-x7k2p' } }] },
      { target_resource: 'web-x7k2p', workload: 'web' },
    ],
    [
      'target from deployment',
      { alerts: [{ labels: { deployment: 'api', instance: '10.0.0.1:8080' } }] },
      { target_resource: 'api' },
    ],
    [
      'target from job_name',
      { alerts: [{ labels: { job_name: 'backup-28391520', job: 'kube-state-metrics' } }] },
      { target_resource: 'backup-28391520', workload: 'backup' },
    ],
    [
      'target from instance',
      { alerts: [{ labels: { instance: '10.0.0.1:9100', job: 'node' } }] },
      { target_resource: '10.0.0.1:9100' },
    ],
    [
      'target from job last',
      { alerts: [{ labels: { job: 'node-exporter' } }] },
      { target_resource: 'node-exporter' },
    ],
    [
      'message from description',
      { alerts: [{ annotations: { description: 'd', message: 'm' } }] },
      { message: 'd' },
    ],
    ['message from message', { alerts: [{ annotations: { message: 'm' } }] }, { message: 'm' }],
    [
      'empty summary skipped',
      { alerts: [{ annotations: { summary: ' ', description: 'd' } }] },
      { message: 'd' },
    ],
    [
      'rule labels carried',
      { alerts: [{ labels: { rule_id: '42', rule_type: 'latency', alert_type: 'x' } }] },
      { rule_id: '42', rule_type: 'latency', alert_type: 'x' },
    ],
    [
      'non-string labels coerced',
      { alerts: [{ labels: { code: 500, canary: true, extra: { a: 1 }, gone: null } }] },
      { labels: { code: '500', canary: 'true', extra: '{"a":1}' } },
    ],
    [
      'labels not an object',
      { commonLabels: 'x', alerts: [{ labels: ['a'], annotations: 7 }] },
      { labels: {}, annotations: {} },
    ],
  ])('%s', (_case, body, expected) => {
    const result = fromAlertmanager(body);
    expect(result.skipped).toBe(0);
    expect(result.alerts[0]).toMatchObject(expected);
  });

  it('leaves absent optional fields out', () => {
    const [alert] = fromAlertmanager({
      alerts: [{ labels: { alertname: 'A', rule_id: ' ' }, startsAt: 5 }],
    }).alerts;
    expect(alert).not.toHaveProperty('rule_id');
    expect(alert).not.toHaveProperty('rule_type');
    expect(alert).not.toHaveProperty('alert_type');
    expect(alert).not.toHaveProperty('starts_at');
    expect(alert).not.toHaveProperty('generator_url');
  });

  it.each<[string, unknown, string | undefined]>([
    [
      'kept as sent, trimmed',
      ' https://grafana.example/alerting/grafana/abc/view ',
      'https://grafana.example/alerting/grafana/abc/view',
    ],
    [
      'not a link: still kept (the console renders only http(s) links)',
      'javascript:alert(1)',
      'javascript:alert(1)',
    ],
    [
      '2048 characters',
      `https://g.example/${'x'.repeat(2048 - 18)}`,
      `https://g.example/${'x'.repeat(2048 - 18)}`,
    ],
    ['longer: dropped', `https://g.example/${'x'.repeat(2048 - 17)}`, undefined],
    ['empty: dropped', '  ', undefined],
    ['a number: dropped', 42, undefined],
    ['an object: dropped', { href: 'https://g.example' }, undefined],
  ])('generatorURL %s', (_case, generatorURL, expected) => {
    const [alert] = fromAlertmanager({
      alerts: [{ labels: { alertname: 'A' }, generatorURL }],
    }).alerts;
    expect(alert?.generator_url).toBe(expected);
  });

  it.each<[string, unknown, number, number]>([
    [
      'non-object entries skipped and counted',
      { alerts: [null, 'x', 3, [], { labels: { alertname: 'A' } }] },
      1,
      4,
    ],
    ['not an Alertmanager body', { alert_name: 'A' }, 0, 0],
    ['not an object', 'nonsense', 0, 0],
    ['empty alerts', { version: '4', alerts: [] }, 0, 0],
  ])('%s', (_case, body, count, skippedCount) => {
    const result = fromAlertmanager(body);
    expect(result.alerts).toHaveLength(count);
    expect(result.skipped).toBe(skippedCount);
  });
});
