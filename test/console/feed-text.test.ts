import { describe, expect, it } from 'vitest';
import type { ApprovalDetail, ApprovalSummary, Incident } from '../../console/src/api-types.js';
import {
  describeApproval,
  describeFeedEvent,
  describeIncident,
  progressText,
} from '../../console/src/feed-text.js';
import type { TextPiece } from '../../console/src/outside-text.js';

/**
 * What the feed says about events, incidents and approvals. Outside text is shown here in
 * [brackets]: each bracket is a piece the page isolates, so its words never mix with the page's.
 */
const shown = (pieces: TextPiece[]) =>
  pieces.map((piece) => (typeof piece === 'string' ? piece : `[${piece.outside}]`)).join('');

const AT = '2026-11-22T12:00:00.000Z';
const NOW = Date.parse(AT);

describe('describeFeedEvent', () => {
  it.each([
    [
      { type: 'signal.handled', entry_id: '1-0', outcome: 'created', incident_id: 'inc-1' },
      'Signal [1-0]: [created] → [inc-1]',
    ],
    [{ type: 'signal.handled', entry_id: '1-0', outcome: 'dropped' }, 'Signal [1-0]: [dropped]'],
    [
      {
        type: 'analysis.updated',
        task_id: 't-1',
        state: 'RUNNING',
        progress: 50,
        agents_completed: 2,
        total_agents: 4,
      },
      'Analysis [t-1]: [RUNNING] 50% (2/4 experts)',
    ],
    [
      { type: 'analysis.updated', task_id: 't-1', state: 'PENDING' },
      'Analysis [t-1]: [PENDING] 0% (0/0 experts)',
    ],
    [
      {
        type: 'approval.updated',
        approval_id: 'apr-1',
        status: 'approved',
        actor: 'console_alice',
        channel: 'console',
      },
      'Approval [apr-1] [approved] by [console_alice] via [console]',
    ],
    [
      { type: 'approval.created', approval_id: 'apr-1', incident_id: 'inc-1' },
      'Approval [apr-1] created for [inc-1]',
    ],
    [
      { type: 'approval.created', approval_id: 'apr-1', incident_id: null },
      'Approval [apr-1] created',
    ],
    [
      { type: 'incident.created', incident_id: 'inc-1', severity: 'critical', namespace: 'prod' },
      'Incident [inc-1] ([critical], [prod])',
    ],
    [
      { type: 'incident.converged', incident_id: 'inc-1', hit_count: 3 },
      'Incident [inc-1] hit 3 times',
    ],
    [
      { type: 'incident.acknowledged', incident_id: 'inc-1', actor: 'console_alice' },
      'Incident [inc-1] acknowledged by [console_alice]',
    ],
    [
      { type: 'incident.resolved', incident_id: 'inc-1', actor: 'timeout' },
      'Incident [inc-1] resolved by [timeout]',
    ],
    [
      { type: 'incident.reopened', incident_id: 'inc-1', actor: 'alert' },
      'Incident [inc-1] reopened by [alert]',
    ],
    [
      { type: 'silence.created', silence_id: 's-1', actor: 'alice' },
      'Silence [s-1] created by [alice]',
    ],
    [
      { type: 'silence.expired', silence_id: 's-1', actor: 'alice' },
      'Silence [s-1] expired by [alice]',
    ],
    [{ type: 'repair.started' }, '[repair.started]'],
  ])('says %o as %s', (fields, text) => {
    expect(shown(describeFeedEvent({ at: AT, ...fields }))).toBe(text);
  });

  it('keeps every field of the event in an outside piece, whatever it holds', () => {
    const hostile = '\u202eevil';
    const pieces = describeFeedEvent({
      type: 'approval.updated',
      at: AT,
      approval_id: hostile,
      status: hostile,
      actor: hostile,
      channel: hostile,
    });
    const own = pieces.filter((piece) => typeof piece === 'string').join('');
    expect(own).not.toContain('\u202e');
    expect(pieces.filter((piece) => typeof piece !== 'string')).toHaveLength(4);
  });

  it('shows an absent field as an empty outside piece', () => {
    expect(describeFeedEvent({ type: 'incident.created', at: AT })).toContainEqual({ outside: '' });
  });
});

describe('progressText', () => {
  it('writes the progress and the experts done', () => {
    expect(progressText({ progress: 90, agents_completed: 4, total_agents: 4 })).toBe(
      '90% (4/4 experts)',
    );
  });
});

const incident: Incident = {
  id: 'inc-1',
  status: 'open',
  severity: 'critical',
  alert_name: 'PodCrashLooping',
  alert_type: 'crashloop',
  source: 'alertmanager',
  target_resource: 'deployment/api',
  namespace: 'prod',
  workload: 'api',
  fingerprint: 'f'.repeat(32),
  hit_count: 2,
  first_seen: new Date(NOW - 3 * 3600_000).toISOString(),
  last_seen: new Date(NOW - 90_000).toISOString(),
  approval_id: null,
};

describe('describeIncident', () => {
  it('says where, what, and when it was first and last seen', () => {
    expect(shown(describeIncident(incident, NOW))).toBe(
      '[prod]/[api] · [crashloop] · first 3h 0m ago · last 1m ago',
    );
  });
});

describe('describeApproval', () => {
  const listed: ApprovalSummary = {
    id: 'apr-1',
    incident_id: 'inc-1',
    status: 'pending',
    risk_level: 'high',
    action: 'rollout restart',
    requested_by: 'system',
    signers: 1,
    signers_needed: 2,
    created_at: AT,
    updated_at: new Date(NOW - 120_000).toISOString(),
  };

  it('counts the signers of a listed approval', () => {
    expect(shown(describeApproval(listed, NOW))).toBe('risk [high] · 1/2 signers · updated 2m ago');
  });

  it('says nothing of signers for an approval read alone, which does not carry them', () => {
    const { signers: _signers, signers_needed: _needed, ...rest } = listed;
    const alone: ApprovalDetail = {
      ...rest,
      description: '',
      metadata: {},
      blast_radius: {},
      dry_run_checks: [],
      decisions: [],
    };
    expect(shown(describeApproval(alone, NOW))).toBe('risk [high] · updated 2m ago');
  });
});
