import { describe, expect, it } from 'vitest';
import { age, duration, timeLeft, when } from '../../console/src/time-text.js';

/** How the console writes times: ages on cards, moments, and gauge durations. */

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const secondsBefore = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

describe('age', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [60, '1m'],
    [59 * 60 + 59, '59m'],
    [3600, '1h 0m'],
    [3 * 3600 + 25 * 60, '3h 25m'],
    [47 * 3600 + 59 * 60, '47h 59m'],
    [48 * 3600, '2d'],
    [10 * 86_400 + 3600, '10d'],
  ])('writes %i seconds ago as %s', (seconds, text) => {
    expect(age(secondsBefore(seconds), NOW)).toBe(text);
  });

  it('rounds to the nearest second and takes a time ahead of the clock as now', () => {
    expect(age(new Date(NOW - 1600).toISOString(), NOW)).toBe('2s');
    expect(age(secondsBefore(-90), NOW)).toBe('0s');
  });

  it.each([null, undefined, ''])('writes a dash for no time (%s)', (iso) => {
    expect(age(iso, NOW)).toBe('–');
  });
});

describe('when', () => {
  it("writes a time in the reader's locale", () => {
    const iso = '2026-11-22T01:02:03.000Z';
    expect(when(iso)).toBe(new Date(iso).toLocaleString());
  });

  it('shows a stamp that is no date as sent, isolated as outside text', () => {
    // Its bidirectional controls shown as text, not obeyed (outside-text.ts, neutralized).
    expect(when('yesterday \u202e')).toBe('\u2068yesterday [U+202E]\u2069');
  });

  it.each([null, undefined, ''])('writes a dash for no time (%s)', (iso) => {
    expect(when(iso)).toBe('–');
  });
});

describe('duration', () => {
  it.each([
    [null, '–'],
    [0, '0 s'],
    [42.4, '42 s'],
    [60, '1 min 0 s'],
    [185, '3 min 5 s'],
    [3599, '59 min 59 s'],
    [3600, '1 h 0 min'],
    [7800, '2 h 10 min'],
    [90_000, '25 h 0 min'],
  ])('writes %s seconds as %s', (seconds, text) => {
    expect(duration(seconds)).toBe(text);
  });
});

describe('timeLeft', () => {
  it.each([
    [-250, '4m left'],
    [-30, '30s left'],
    [0, 'expired 0s ago'],
    [125, 'expired 2m ago'],
    [3 * 3600, 'expired 3h 0m ago'],
  ])('writes an expiry %i seconds before now as %s', (seconds, text) => {
    expect(timeLeft(secondsBefore(seconds), NOW)).toBe(text);
  });

  it('writes a dash for no expiry', () => {
    expect(timeLeft(null, NOW)).toBe('–');
  });
});
