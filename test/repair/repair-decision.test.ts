import { describe, expect, it } from 'vitest';
import type { RiskLevel } from '../../src/features/approvals/approval-domain.js';
import {
  decideRepair,
  type IncidentSeverity,
  REPAIR_BLOCKERS,
  type RepairDecisionInput,
} from '../../src/features/repair/repair-decision.js';

function match(risk: RiskLevel = 'low', score = 1): RepairDecisionInput['match'] {
  return {
    playbook: { id: 'restart', name: 'Restart', risk_level: risk },
    similarity_score: score,
  };
}

function input(overrides: Partial<RepairDecisionInput>): RepairDecisionInput {
  return { severity: 'P2', risk_level: 'medium', match: match(), successfulRuns: 3, ...overrides };
}

describe('decideRepair', () => {
  it.each<[string, Partial<RepairDecisionInput>, boolean, string | null, boolean]>([
    // [case, input, can_auto_repair, blocked_by, is_cold_start]
    ['P0 is blocked (spec)', { severity: 'P0' }, false, 'incident_severity_P0', false],
    ['P1 is blocked (spec)', { severity: 'P1' }, false, 'incident_severity_P1', false],
    ['P2 is allowed', { severity: 'P2' }, true, null, false],
    ['P3 is allowed', { severity: 'P3' }, true, null, false],
    ['no incident (error tracker) is allowed', { severity: null }, true, null, false],
    ['cold start does not block', { successfulRuns: 0 }, true, null, true],
    ['no playbook', { match: null }, false, 'no_playbook', false],
    [
      'severity is named before a missing playbook',
      { severity: 'P1', match: null },
      false,
      'incident_severity_P1',
      false,
    ],
    [
      'critical playbook: break-glass',
      { match: match('critical') },
      false,
      'critical_break_glass',
      false,
    ],
    [
      'critical approval: break-glass',
      { risk_level: 'critical' },
      false,
      'critical_break_glass',
      false,
    ],
    ['high risk is allowed', { match: match('high'), risk_level: 'low' }, true, null, false],
    [
      'cold start is reported when blocked too',
      { severity: 'P0', successfulRuns: 0 },
      false,
      'incident_severity_P0',
      true,
    ],
  ])('%s', (_, overrides, allowed, blocker, coldStart) => {
    const decision = decideRepair(input(overrides));
    expect(decision.can_auto_repair).toBe(allowed);
    expect(decision.blocked_by).toBe(blocker);
    expect(decision.is_cold_start).toBe(coldStart);
    if (blocker !== null) expect(REPAIR_BLOCKERS).toContain(blocker);
    expect(decision.reason).not.toBe('');
  });

  it('has exactly the spec fields', () => {
    const decision = decideRepair(input({ successfulRuns: 0 }));
    expect(Object.keys(decision).sort()).toEqual(
      [
        'blocked_by',
        'can_auto_repair',
        'is_cold_start',
        'playbook',
        'reason',
        'risk_level',
        'similarity_score',
      ].sort(),
    );
    expect(decision).toMatchObject({
      playbook: { id: 'restart', name: 'Restart' },
      similarity_score: 1,
      reason: expect.stringContaining('cold start'),
    });
  });

  it('reports the higher of the approval and playbook risk', () => {
    expect(decideRepair(input({ risk_level: 'low', match: match('high') })).risk_level).toBe(
      'high',
    );
    expect(decideRepair(input({ risk_level: 'high', match: match('low') })).risk_level).toBe(
      'high',
    );
    expect(decideRepair(input({ risk_level: 'low', match: null, severity: 'P3' }))).toMatchObject({
      risk_level: 'low',
      playbook: null,
      similarity_score: 0,
      is_cold_start: false,
    });
  });

  it('blocks every P0 and P1 whatever else holds', () => {
    for (const severity of ['P0', 'P1'] as IncidentSeverity[]) {
      for (const risk of ['low', 'medium', 'high', 'critical'] as RiskLevel[]) {
        const decision = decideRepair(input({ severity, risk_level: risk }));
        expect(decision.blocked_by).toBe(`incident_severity_${severity}`);
      }
    }
  });
});
