import { describe, expect, it } from 'vitest';
import { alertIdAt } from '../../src/features/intake/alert-id.js';
import { DEFAULT_TIME_ZONE, formatInZone } from '../../src/support/zoned-time.js';

const at = (iso: string) => Date.parse(iso);

describe('alertIdAt', () => {
  // spec, POST /webhooks/alerts: "alert-<YYYYMMDDHHMMSS> ... in Asia/Taipei time" (UTC+8, no DST)
  it.each<[string, number, string | undefined, string]>([
    [
      'fixed epoch, Taipei by default',
      at('2024-05-01T08:09:10.999Z'),
      undefined,
      'alert-20240501160910',
    ],
    [
      'Taipei midnight is 00, not 24',
      at('2024-05-01T16:00:00Z'),
      'Asia/Taipei',
      'alert-20240502000000',
    ],
    [
      'one second before Taipei midnight',
      at('2024-05-01T15:59:59Z'),
      'Asia/Taipei',
      'alert-20240501235959',
    ],
    [
      'New Year in Taipei, still old year in UTC',
      at('2023-12-31T16:00:00Z'),
      'Asia/Taipei',
      'alert-20240101000000',
    ],
    ['UTC', at('2024-05-01T08:09:10Z'), 'UTC', 'alert-20240501080910'],
    ['UTC midnight', at('2024-05-02T00:00:00Z'), 'UTC', 'alert-20240502000000'],
    [
      'New York in summer time',
      at('2024-07-01T04:00:00Z'),
      'America/New_York',
      'alert-20240701000000',
    ],
    ['epoch zero', 0, undefined, 'alert-19700101080000'],
  ])('%s', (_case, epochMs, zone, expected) => {
    expect(alertIdAt(epochMs, zone)).toBe(expected);
  });

  it('defaults to Asia/Taipei', () => {
    expect(DEFAULT_TIME_ZONE).toBe('Asia/Taipei');
  });

  it('rejects an unknown zone', () => {
    expect(() => alertIdAt(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('formatInZone', () => {
  it.each<[number, string | undefined, string]>([
    [at('2024-05-01T08:09:10.500Z'), undefined, '2024-05-01T16:09:10+08:00'],
    [at('2024-05-01T16:00:00Z'), 'Asia/Taipei', '2024-05-02T00:00:00+08:00'],
    [at('2024-05-01T08:09:10Z'), 'UTC', '2024-05-01T08:09:10+00:00'],
    [at('2024-01-15T12:00:00Z'), 'America/New_York', '2024-01-15T07:00:00-05:00'],
    [at('2024-07-01T12:00:00Z'), 'America/New_York', '2024-07-01T08:00:00-04:00'],
    [at('2024-01-15T12:00:00Z'), 'Asia/Kolkata', '2024-01-15T17:30:00+05:30'],
    [at('2024-01-15T12:00:00Z'), 'Europe/London', '2024-01-15T12:00:00+00:00'],
  ])('%i in %s → %s', (epochMs, zone, expected) => {
    const formatted = formatInZone(epochMs, zone);
    expect(formatted).toBe(expected);
    // the string names the same instant, to the second
    expect(Date.parse(formatted)).toBe(Math.floor(epochMs / 1000) * 1000);
  });
});
