import { describe, expect, it } from 'vitest';
import type { FeedEvent, Incident } from '../../console/src/api-types.js';
import {
  describeFeedEvent,
  describeIncident,
  type LinePiece,
  type Names,
  progressText,
} from '../../console/src/feed-text.js';

/**
 * What the console says about events and incidents. Outside text is shown here in [brackets]:
 * each bracket is a piece the page isolates, so its words never mix with the page's. A record
 * is shown as <kind:id|label>: the page draws it as a link to the record's page.
 */
const shown = (pieces: LinePiece[]): string =>
  pieces
    .map((piece) => {
      if (typeof piece === 'string') return piece;
      if ('outside' in piece) return `[${piece.outside}]`;
      const label = piece.label === undefined ? '' : shown([piece.label]);
      return `<${piece.record}:${piece.id}${label ? `|${label}` : ''}>`;
    })
    .join('');

const AT = '2026-11-22T12:00:00.000Z';
const NOW = Date.parse(AT);

/** What the Activity list knows from earlier events: one named incident, one approval of it. */
const names: Names = {
  incidentName: (id) =>
    id === 'inc-1' ? { alert_name: 'DiskFull', namespace: 'prod' } : undefined,
  incidentOfApproval: (id) => (id === 'apr-1' ? 'inc-1' : undefined),
};

describe('describeFeedEvent', () => {
  it.each([
    [
      { type: 'signal.handled', entry_id: '1-0', outcome: 'created', incident_id: 'inc-1' },
      'Signal [1-0]: [created] → <incident:inc-1|[DiskFull]> in [prod]',
    ],
    [
      { type: 'signal.handled', entry_id: '1-0', outcome: 'created', incident_id: 'inc-9' },
      'Signal [1-0]: [created] → <incident:inc-9>',
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
      'Analysis <analysis:t-1>: [RUNNING] 50% (2/4 experts)',
    ],
    [
      { type: 'analysis.updated', task_id: 't-1', state: 'PENDING' },
      'Analysis <analysis:t-1>: [PENDING] 0% (0/0 experts)',
    ],
    [
      {
        type: 'approval.updated',
        approval_id: 'apr-1',
        status: 'approved',
        actor: 'console_alice',
        channel: 'console',
      },
      '<approval:apr-1|Approval> for <incident:inc-1|[DiskFull]> in [prod] [approved] by [console_alice] via [console]',
    ],
    [
      {
        type: 'approval.updated',
        approval_id: 'apr-9',
        status: 'expired',
        actor: 'timeout',
      },
      'Approval <approval:apr-9> [expired] by [timeout]',
    ],
    [
      {
        type: 'approval.updated',
        approval_id: 'apr-1',
        status: 'pending',
        actor: 'console_alice',
        channel: 'console',
      },
      '<approval:apr-1|Approval> for <incident:inc-1|[DiskFull]> in [prod] signed by [console_alice] via [console]: another signer is needed',
    ],
    [
      {
        type: 'approval.created',
        approval_id: 'apr-1',
        incident_id: 'inc-1',
        action: 'restart_pod',
        risk_level: 'critical',
      },
      'Approval <approval:apr-1|[restart_pod]> (risk [critical]) requested for <incident:inc-1|[DiskFull]> in [prod]',
    ],
    [
      { type: 'approval.created', approval_id: 'apr-1', incident_id: null },
      'Approval <approval:apr-1> requested',
    ],
    [
      {
        type: 'incident.created',
        incident_id: 'inc-2',
        severity: 'P0',
        namespace: 'shop',
        alert_name: 'KubeDown',
      },
      'New [P0] incident <incident:inc-2|[KubeDown]> in [shop]',
    ],
    [
      { type: 'incident.created', incident_id: 'inc-1', severity: 'critical', namespace: 'prod' },
      'New [critical] incident <incident:inc-1|[DiskFull]> in [prod]',
    ],
    [
      { type: 'incident.converged', incident_id: 'inc-1', hit_count: 3 },
      '<incident:inc-1|[DiskFull]> in [prod] hit 3 times',
    ],
    [
      { type: 'incident.acknowledged', incident_id: 'inc-1', actor: 'console_alice' },
      '<incident:inc-1|[DiskFull]> in [prod] acknowledged by [console_alice]',
    ],
    [
      { type: 'incident.resolved', incident_id: 'inc-7', actor: 'timeout' },
      '<incident:inc-7> resolved by [timeout]',
    ],
    [
      { type: 'incident.reopened', incident_id: 'inc-1', actor: 'alert' },
      '<incident:inc-1|[DiskFull]> in [prod] reopened by [alert]',
    ],
    [
      { type: 'silence.created', silence_id: 's-1', actor: 'alice' },
      'Silence <silence:s-1> created by [alice]',
    ],
    [
      { type: 'silence.expired', silence_id: 's-1', actor: 'alice' },
      'Silence <silence:s-1> expired by [alice]',
    ],
    [{ type: 'repair.started' }, '[repair.started]'],
  ])('says %o as %s', (fields, text) => {
    // Some values and types here are none this service sends: the words hold for a newer one's.
    expect(shown(describeFeedEvent({ at: AT, ...fields } as FeedEvent, names))).toBe(text);
  });

  it('names nothing it was not told: without names every record is its id', () => {
    const pieces = describeFeedEvent({
      type: 'incident.converged',
      at: AT,
      incident_id: 'inc-1',
      approval_id: null,
      hit_count: 2,
    });
    expect(shown(pieces)).toBe('<incident:inc-1> hit 2 times');
  });

  it('keeps every field of the event in an outside piece or a record, whatever it holds', () => {
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
    const older = { type: 'incident.created', at: AT } as FeedEvent;
    expect(describeFeedEvent(older)).toContainEqual({ outside: '' });
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
