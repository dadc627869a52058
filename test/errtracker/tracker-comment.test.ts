import { describe, expect, it } from 'vitest';
import type { AnomalyFrequency } from '../../src/features/errtracker/anomaly-frequency.js';
import { showsFrequency, trackerComment } from '../../src/features/errtracker/tracker-comment.js';
import type { ErrorAnalysis } from '../../src/ports/analyzer.js';
import { confidencePercent } from '../../src/support/confidence-percent.js';

const analysis: ErrorAnalysis = {
  root_cause: 'Customer lookup returns null for guest checkouts.',
  impact: 'Order confirmations are not sent.',
  fix_suggestion: 'Skip the mail or use the order email when there is no customer.',
  prevention: 'Make the customer optional in the mailer signature.',
  confidence: 0.874,
  analyzed_by: 'rules',
};

const frequency = (count_24h: number): AnomalyFrequency => ({
  anomaly_key: 'errtracker:orders-service:ConfirmationMailer in compose',
  count_1h: 1,
  count_24h,
  count_7d: 6,
  count_30d: 11,
  auto_repair_count: 0,
  escalation_level: count_24h >= 2 ? 'REPEAT' : null,
});

// 2024-03-01T00:00:00Z is 08:00 in Taipei (UTC+8, no daylight saving)
const NOW = Date.parse('2024-03-01T00:00:00Z');

describe('trackerComment', () => {
  it('holds the analysis, the confidence and a Taipei timestamp', () => {
    expect(trackerComment(analysis, null, NOW)).toBe(
      [
        '## Automated error analysis',
        '',
        '**Root cause:** Customer lookup returns null for guest checkouts.',
        '',
        '**Impact:** Order confirmations are not sent.',
        '',
        '**Fix suggestion:** Skip the mail or use the order email when there is no customer.',
        '',
        '**Prevention:** Make the customer optional in the mailer signature.',
        '',
        'Confidence: 87% · Analyzed by rules · 2024-03-01T08:00:00+08:00',
        '',
      ].join('\n'),
    );
  });

  // spec, Anomaly frequency: "shown in tracker comments only when count_24h is greater than 1"
  it.each<[string, AnomalyFrequency | null, boolean]>([
    ['no frequency', null, false],
    ['count_24h 0', frequency(0), false],
    ['count_24h 1', frequency(1), false],
    ['count_24h 2', frequency(2), true],
    ['count_24h 7', frequency(7), true],
  ])('frequency block: %s', (_case, f, shown) => {
    const text = trackerComment(analysis, f, NOW);
    expect(text.includes('### Frequency')).toBe(shown);
    expect(showsFrequency(f)).toBe(shown);
  });

  it('renders the frequency table', () => {
    expect(trackerComment(analysis, frequency(2), NOW)).toContain(
      [
        '### Frequency',
        '',
        '| 1h | 24h | 7d | 30d | Auto-repairs | Escalation |',
        '|---:|---:|---:|---:|---:|---|',
        '| 1 | 2 | 6 | 11 | 0 | REPEAT |',
      ].join('\n'),
    );
  });

  it('says none when there is no escalation', () => {
    const f = { ...frequency(3), escalation_level: null };
    expect(trackerComment(analysis, f, NOW)).toContain('| 1 | 3 | 6 | 11 | 0 | none |');
  });

  it.each<[string, number, string]>([
    ['Taipei', NOW, '2024-03-01T08:00:00+08:00'],
    [
      'Taipei, next day after 16:00 UTC',
      Date.parse('2024-03-01T16:30:05Z'),
      '2024-03-02T00:30:05+08:00',
    ],
  ])('timestamp: %s', (_case, now, stamp) => {
    expect(trackerComment(analysis, null, now)).toContain(`· ${stamp}\n`);
  });

  it('uses another display zone when given', () => {
    expect(trackerComment(analysis, null, NOW, 'UTC')).toContain('2024-03-01T00:00:00+00:00');
  });
});

describe('confidencePercent', () => {
  it.each<[number, number]>([
    [0.874, 87],
    [0.875, 88],
    [0, 0],
    [1, 100],
    [0.005, 1],
    [1.5, 100],
    [-0.2, 0],
    [Number.NaN, 0],
  ])('%d → %d%%', (confidence, percent) => {
    expect(confidencePercent(confidence)).toBe(percent);
  });
});
