/**
 * What the feed says about events, incidents and approvals, as pieces of text: free of the DOM
 * so that Node can test the wording; `<OutsideText>` renders the pieces, isolating the outside
 * ones.
 */
import type { FeedApproval, FeedEvent, Incident } from './api-types.js';
import { outside, type TextPiece } from './outside-text.js';
import { age } from './time-text.js';

type Progress = Pick<FeedEvent, 'progress' | 'agents_completed' | 'total_agents'>;

/** An analysis task's progress: `40% (2/4 experts)`. */
export function progressText(event: Progress): string {
  return `${event.progress ?? 0}% (${event.agents_completed ?? 0}/${event.total_agents ?? 0} experts)`;
}

/** One line of the activity list; every field of the event is outside text. */
export function describeFeedEvent(event: FeedEvent): TextPiece[] {
  switch (event.type) {
    case 'signal.handled':
      return [
        'Signal ',
        outside(event.entry_id),
        ': ',
        outside(event.outcome),
        ...(event.incident_id ? [' → ', outside(event.incident_id)] : []),
      ];
    case 'analysis.updated':
      return [
        'Analysis ',
        outside(event.task_id),
        ': ',
        outside(event.state),
        ` ${progressText(event)}`,
      ];
    case 'approval.updated':
      return [
        'Approval ',
        outside(event.approval_id),
        ' ',
        outside(event.status),
        ' by ',
        outside(event.actor),
        ' via ',
        outside(event.channel),
      ];
    case 'approval.created':
      return [
        'Approval ',
        outside(event.approval_id),
        ' created',
        ...(event.incident_id ? [' for ', outside(event.incident_id)] : []),
      ];
    case 'incident.created':
      return [
        'Incident ',
        outside(event.incident_id),
        ' (',
        outside(event.severity),
        ', ',
        outside(event.namespace),
        ')',
      ];
    case 'incident.acknowledged':
    case 'incident.resolved':
    case 'incident.reopened':
      return [
        'Incident ',
        outside(event.incident_id),
        ` ${event.type.slice('incident.'.length)} by `,
        outside(event.actor),
      ];
    case 'silence.created':
    case 'silence.expired':
      return [
        'Silence ',
        outside(event.silence_id),
        ` ${event.type.slice('silence.'.length)} by `,
        outside(event.actor),
      ];
    case 'incident.converged':
      return ['Incident ', outside(event.incident_id), ` hit ${event.hit_count ?? ''} times`];
    default:
      return [outside(event.type)];
  }
}

/** An incident card's meta line: where, what, and when first and last seen. */
export function describeIncident(incident: Incident, now: number): TextPiece[] {
  return [
    outside(incident.namespace),
    '/',
    outside(incident.workload),
    ' · ',
    outside(incident.alert_type),
    ` · first ${age(incident.first_seen, now)} ago · last ${age(incident.last_seen, now)} ago`,
  ];
}

/**
 * An approval card's meta line. Only a listed approval knows its signers: one read alone
 * (after an update) says nothing of them.
 */
export function describeApproval(approval: FeedApproval, now: number): TextPiece[] {
  return [
    'risk ',
    outside(approval.risk_level),
    'signers_needed' in approval ? ` · ${approval.signers}/${approval.signers_needed} signers` : '',
    ` · updated ${age(approval.updated_at, now)} ago`,
  ];
}
