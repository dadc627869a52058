import { describe, expect, it } from 'vitest';
import {
  anomalyFrequency,
  anomalyKey,
  countsFromOccurrences,
  DEFAULT_ESCALATION_THRESHOLDS,
  type EscalationLevel,
  escalationLevel,
  type OccurrenceCounts,
  trackerAnomalyKey,
} from '../../src/features/errtracker/anomaly-frequency.js';
import { buildErrorContext } from '../../src/features/errtracker/error-context.js';

const counts = (c: Partial<OccurrenceCounts>): OccurrenceCounts => ({
  count_1h: 0,
  count_24h: 0,
  count_7d: 0,
  count_30d: 0,
  auto_repair_count: 0,
  ...c,
});

describe('anomalyKey', () => {
  // CONTRACT, Anomaly frequency: `<source>:<project or namespace>:<alert type or culprit>`
  it.each([
    [
      'errtracker',
      'billing-api',
      'billing.invoices in build_line_items',
      'errtracker:billing-api:billing.invoices in build_line_items',
    ],
    ['prometheus', 'default', 'crash_loop', 'prometheus:default:crash_loop'],
    ['', '', '', '::'],
  ])('%s / %s / %s', (source, scope, kind, expected) => {
    expect(anomalyKey(source, scope, kind)).toBe(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'culprit',
      { project: { slug: 'web' }, culprit: 'app in run', title: 'T' },
      'errtracker:web:app in run',
    ],
    ['title without culprit', { project: { slug: 'web' }, title: 'T' }, 'errtracker:web:T'],
  ])('tracker key from %s', (_case, issue, expected) => {
    expect(trackerAnomalyKey(buildErrorContext({ data: { issue } }))).toBe(expected);
  });
});

describe('escalationLevel', () => {
  // CONTRACT, Anomaly frequency: PERMANENT_FIX when count_7d >= 10 or auto_repair_count >= 3;
  // else ESCALATE when count_24h >= 5; else REPEAT when count_24h >= 2; else null
  it.each<[string, Partial<OccurrenceCounts>, EscalationLevel | null]>([
    ['nothing', {}, null],
    ['one in 24h', { count_24h: 1, count_7d: 1 }, null],
    ['two in 24h', { count_24h: 2, count_7d: 2 }, 'REPEAT'],
    ['four in 24h', { count_24h: 4, count_7d: 4 }, 'REPEAT'],
    ['five in 24h', { count_24h: 5, count_7d: 5 }, 'ESCALATE'],
    ['nine in 24h and 7d', { count_24h: 9, count_7d: 9 }, 'ESCALATE'],
    ['ten in 7d', { count_24h: 0, count_7d: 10 }, 'PERMANENT_FIX'],
    ['nine in 7d, one in 24h', { count_24h: 1, count_7d: 9 }, null],
    ['two auto-repairs', { auto_repair_count: 2 }, null],
    ['three auto-repairs', { auto_repair_count: 3 }, 'PERMANENT_FIX'],
    [
      'three auto-repairs beat ESCALATE',
      { count_24h: 6, count_7d: 6, auto_repair_count: 3 },
      'PERMANENT_FIX',
    ],
    ['1h and 30d alone never escalate', { count_1h: 50, count_30d: 500 }, null],
  ])('%s', (_case, c, expected) => {
    expect(escalationLevel(counts(c))).toBe(expected);
  });

  it.each<[string, Partial<OccurrenceCounts>, EscalationLevel | null]>([
    ['repeat at 3', { count_24h: 3 }, 'REPEAT'],
    ['not repeat at 2', { count_24h: 2 }, null],
    ['escalate at 4', { count_24h: 4 }, 'ESCALATE'],
    ['permanent at 20 in 7d', { count_7d: 20 }, 'PERMANENT_FIX'],
    ['not permanent at 19 in 7d', { count_7d: 19 }, null],
    ['permanent at 1 auto-repair', { auto_repair_count: 1 }, 'PERMANENT_FIX'],
  ])('configured thresholds: %s', (_case, c, expected) => {
    const thresholds = {
      permanentFixCount7d: 20,
      permanentFixAutoRepairs: 1,
      escalateCount24h: 4,
      repeatCount24h: 3,
    };
    expect(escalationLevel(counts(c), thresholds)).toBe(expected);
  });

  it('defaults are the contract values and cannot be changed', () => {
    expect(DEFAULT_ESCALATION_THRESHOLDS).toEqual({
      permanentFixCount7d: 10,
      permanentFixAutoRepairs: 3,
      escalateCount24h: 5,
      repeatCount24h: 2,
    });
    expect(Object.isFrozen(DEFAULT_ESCALATION_THRESHOLDS)).toBe(true);
  });
});

describe('countsFromOccurrences', () => {
  const now = Date.parse('2024-03-01T00:00:00Z');
  const minute = 60_000;
  const hour = 60 * minute;
  const day = 24 * hour;

  it.each<[string, number[], Omit<OccurrenceCounts, 'auto_repair_count'>]>([
    ['none', [], { count_1h: 0, count_24h: 0, count_7d: 0, count_30d: 0 }],
    ['at now', [now], { count_1h: 1, count_24h: 1, count_7d: 1, count_30d: 1 }],
    ['just inside 1h', [now - hour + 1], { count_1h: 1, count_24h: 1, count_7d: 1, count_30d: 1 }],
    ['exactly 1h old', [now - hour], { count_1h: 0, count_24h: 1, count_7d: 1, count_30d: 1 }],
    ['exactly 24h old', [now - day], { count_1h: 0, count_24h: 0, count_7d: 1, count_30d: 1 }],
    ['exactly 7d old', [now - 7 * day], { count_1h: 0, count_24h: 0, count_7d: 0, count_30d: 1 }],
    [
      'just inside 30d',
      [now - 30 * day + 1],
      { count_1h: 0, count_24h: 0, count_7d: 0, count_30d: 1 },
    ],
    ['exactly 30d old', [now - 30 * day], { count_1h: 0, count_24h: 0, count_7d: 0, count_30d: 0 }],
    [
      'in the future',
      [now + 1, now + day],
      { count_1h: 0, count_24h: 0, count_7d: 0, count_30d: 0 },
    ],
    [
      'a spread',
      [now, now - 5 * minute, now - 2 * hour, now - 3 * day, now - 10 * day, now - 40 * day],
      { count_1h: 2, count_24h: 3, count_7d: 4, count_30d: 5 },
    ],
  ])('%s', (_case, times, expected) => {
    expect(countsFromOccurrences(times, now, 2)).toEqual({ ...expected, auto_repair_count: 2 });
  });

  it('assembles the spec record', () => {
    const c = countsFromOccurrences(
      [now, now - hour * 2, now - hour * 3, now - hour * 4, now - hour * 5],
      now,
      0,
    );
    expect(anomalyFrequency('errtracker:web:app', c)).toEqual({
      anomaly_key: 'errtracker:web:app',
      count_1h: 1,
      count_24h: 5,
      count_7d: 5,
      count_30d: 5,
      auto_repair_count: 0,
      escalation_level: 'ESCALATE',
    });
  });
});
