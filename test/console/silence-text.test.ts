import { describe, expect, it } from 'vitest';
import {
  matcherOperator,
  matchersFromIncident,
  matcherText,
  postableSilence,
} from '../../console/src/silence-text.js';

/** The silences the console proposes for an incident, and how it writes their matchers. */

const incident = {
  alert_name: 'PodCrashLooping',
  namespace: 'shop',
  alert_type: 'pod_crash',
  workload: 'checkout',
  labels: {
    team: 'payments',
    alertname: 'labelled-differently',
    pod: 'checkout-7d9f8b6c5-x2x4z',
    empty: '',
    retries: 3,
    nested: { not: 'a label' },
  },
};

describe('matchersFromIncident', () => {
  it("proposes the incident's fields, then its labels by name, all exact", () => {
    expect(matchersFromIncident(incident)).toEqual([
      { name: 'alertname', value: 'PodCrashLooping', isRegex: false, isEqual: true },
      { name: 'namespace', value: 'shop', isRegex: false, isEqual: true },
      { name: 'alert_type', value: 'pod_crash', isRegex: false, isEqual: true },
      { name: 'workload', value: 'checkout', isRegex: false, isEqual: true },
      { name: 'pod', value: 'checkout-7d9f8b6c5-x2x4z', isRegex: false, isEqual: true },
      { name: 'retries', value: '3', isRegex: false, isEqual: true },
      { name: 'team', value: 'payments', isRegex: false, isEqual: true },
    ]);
  });

  it('leaves out empty fields and inherited names', () => {
    const matchers = matchersFromIncident({ ...incident, workload: '', labels: {} });
    expect(matchers.map((matcher) => matcher.name)).toEqual([
      'alertname',
      'namespace',
      'alert_type',
    ]);
    const hostile = matchersFromIncident({ ...incident, labels: JSON.parse('{"__proto__": "x"}') });
    expect(hostile.map((matcher) => matcher.name)).toContain('__proto__');
  });
});

describe('matcherText', () => {
  it.each([
    [false, true, '='],
    [false, false, '!='],
    [true, true, '=~'],
    [true, false, '!~'],
  ])('isRegex %s isEqual %s is %s', (isRegex, isEqual, operator) => {
    expect(matcherOperator({ isRegex, isEqual })).toBe(operator);
  });

  it('isolates the name and the value', () => {
    const text = matcherText({ name: 'team', value: 'pay', isRegex: false, isEqual: false });
    expect(text).toEqual([{ outside: 'team' }, '!="', { outside: 'pay' }, '"']);
  });
});

describe('postableSilence', () => {
  it('starts now and ends after the chosen duration', () => {
    const now = Date.parse('2026-11-22T12:00:00.000Z');
    const body = postableSilence({
      matchers: [{ name: 'a', value: 'b', isRegex: false, isEqual: true }],
      seconds: 3600,
      createdBy: 'console_alice',
      comment: 'deploying',
      now,
    });
    expect(body.startsAt).toBe('2026-11-22T12:00:00.000Z');
    expect(body.endsAt).toBe('2026-11-22T13:00:00.000Z');
    expect(body.createdBy).toBe('console_alice');
  });
});
