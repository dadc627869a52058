/**
 * What the console says about feed events and incidents, as pieces of a line: free of the DOM
 * so that Node can test the wording. `<OutsideText>` and `<ActivityLine>` render the pieces,
 * isolating the outside ones and making each record a link to its page.
 */
import type { FeedEvent, FeedEventOf, Incident } from './api-types.js';
import { outside, type TextPiece } from './outside-text.js';
import { age } from './time-text.js';

type Progress = Pick<
  FeedEventOf<'analysis.updated'>,
  'progress' | 'agents_completed' | 'total_agents'
>;

/** An analysis task's progress: `40% (2/4 experts)`. */
export function progressText(event: Progress): string {
  return `${event.progress ?? 0}% (${event.agents_completed ?? 0}/${event.total_agents ?? 0} experts)`;
}

/** A record the line names, drawn as a link to its page: its label, or else its id. */
export interface RecordPiece {
  record: 'incident' | 'approval' | 'analysis' | 'silence';
  id: string;
  label?: TextPiece;
}

export type LinePiece = TextPiece | RecordPiece;

/** What the line knows of incidents beyond the event: their names, an approval's incident. */
export interface Names {
  incidentName(
    id: string | null | undefined,
  ): { alert_name: string; namespace: string } | undefined;
  incidentOfApproval(approvalId: string | null | undefined): string | undefined;
}

const NO_NAMES: Names = { incidentName: () => undefined, incidentOfApproval: () => undefined };

/** An incident by its alert name and namespace when known, else by its id. */
function incidentPieces(id: string | null | undefined, names: Names): LinePiece[] {
  if (!id) return [outside('')];
  const name = names.incidentName(id);
  if (!name) return [{ record: 'incident', id }];
  return [
    { record: 'incident', id, label: outside(name.alert_name) },
    ' in ',
    outside(name.namespace),
  ];
}

/** Who moved something, and where: ` by alice via console`. */
const byWhom = (event: { actor: string; channel?: string }): LinePiece[] =>
  event.channel
    ? [' by ', outside(event.actor), ' via ', outside(event.channel)]
    : [' by ', outside(event.actor)];

/** One line of the Activity list; every field of an event is outside text. */
export function describeFeedEvent(event: FeedEvent, names: Names = NO_NAMES): LinePiece[] {
  const incident = (id: string | null | undefined) => incidentPieces(id, names);
  switch (event.type) {
    case 'signal.handled':
      return [
        'Signal ',
        outside(event.entry_id),
        ': ',
        outside(event.outcome),
        ...(event.incident_id ? [' → ', ...incident(event.incident_id)] : []),
      ];
    case 'analysis.updated':
      return [
        'Analysis ',
        { record: 'analysis', id: event.task_id ?? '' },
        ': ',
        outside(event.state),
        ` ${progressText(event)}`,
      ];
    case 'approval.created':
      return [
        'Approval ',
        event.action
          ? { record: 'approval', id: event.approval_id ?? '', label: outside(event.action) }
          : { record: 'approval', id: event.approval_id ?? '' },
        ...(event.risk_level ? [' (risk ', outside(event.risk_level), ')'] : []),
        ' requested',
        ...(event.incident_id ? [' for ', ...incident(event.incident_id)] : []),
      ];
    case 'approval.updated': {
      const incidentId = names.incidentOfApproval(event.approval_id);
      const approval: RecordPiece = { record: 'approval', id: event.approval_id ?? '' };
      const subject: LinePiece[] = incidentId
        ? [{ ...approval, label: 'Approval' }, ' for ', ...incidentPieces(incidentId, names)]
        : ['Approval ', approval];
      // A decision that leaves it pending is a first signature of two (CONTRACT, Approvals).
      if (event.status === 'pending') {
        return [...subject, ' signed', ...byWhom(event), ': another signer is needed'];
      }
      return [...subject, ' ', outside(event.status), ...byWhom(event)];
    }
    case 'incident.created':
      return ['New ', outside(event.severity), ' incident ', ...incidentCreated(event, names)];
    case 'incident.acknowledged':
    case 'incident.resolved':
    case 'incident.reopened':
      return [
        ...incident(event.incident_id),
        ` ${event.type.slice('incident.'.length)}`,
        ...byWhom(event),
      ];
    case 'silence.created':
    case 'silence.expired':
      return [
        'Silence ',
        { record: 'silence', id: event.silence_id ?? '' },
        ` ${event.type.slice('silence.'.length)}`,
        ...byWhom(event),
      ];
    case 'incident.converged':
      return [...incident(event.incident_id), ` hit ${event.hit_count ?? ''} times`];
    default: {
      // A newer service may send a type this console does not know yet.
      const unknown: { type: string } = event;
      return [outside(unknown.type)];
    }
  }
}

/** A new incident names itself: its event carries the alert name and namespace. */
function incidentCreated(event: FeedEventOf<'incident.created'>, names: Names): LinePiece[] {
  if (!event.alert_name) return incidentPieces(event.incident_id, names);
  return [
    { record: 'incident', id: event.incident_id ?? '', label: outside(event.alert_name) },
    ' in ',
    outside(event.namespace),
  ];
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
