import { describe, expect, it } from 'vitest';
import {
  FLAT_ALERT_SEVERITIES,
  incidentSeverity,
  isFlatAlertSeverity,
} from '../../src/features/intake/normalize-alert.js';

describe('incidentSeverity', () => {
  // CONTRACT, Alert webhook: "P0-P3 as given; critical is P1, warning P2, info P3"
  it.each<[string | undefined, string]>([
    ['P0', 'P0'],
    ['P1', 'P1'],
    ['P2', 'P2'],
    ['P3', 'P3'],
    ['critical', 'P1'],
    ['warning', 'P2'],
    ['info', 'P3'],
    ['Critical', 'P1'],
    ['CRITICAL', 'P1'],
    ['p1', 'P1'],
    [' warning ', 'P2'],
    ['page', 'P1'],
    ['error', 'P2'],
    ['warn', 'P2'],
    ['none', 'P3'],
    ['P4', 'P2'],
    ['fatal', 'P2'],
    ['bogus', 'P2'],
    ['', 'P2'],
    [undefined, 'P2'],
  ])('%j → %s', (severity, expected) => {
    expect(incidentSeverity(severity)).toBe(expected);
  });
});

describe('isFlatAlertSeverity', () => {
  it('lists the contract values', () => {
    expect(FLAT_ALERT_SEVERITIES).toEqual(['critical', 'warning', 'info', 'P0', 'P1', 'P2', 'P3']);
  });

  it.each<[string, boolean]>([
    ['critical', true],
    ['Critical', true],
    ['p3', true],
    ['P0', true],
    ['page', false],
    ['P4', false],
    ['', false],
  ])('%j → %s', (severity, expected) => {
    expect(isFlatAlertSeverity(severity)).toBe(expected);
  });
});
