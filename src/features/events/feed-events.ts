import type { Services } from '../../services.js';

/** CONTRACT, Operator console: the event types of `GET /api/v1/events`. */
export type FeedEventType =
  | 'incident.created'
  | 'incident.converged'
  | 'incident.acknowledged'
  | 'incident.resolved'
  | 'incident.reopened'
  | 'approval.created'
  | 'approval.updated'
  | 'signal.handled'
  | 'analysis.updated'
  | 'silence.created'
  | 'silence.expired';

/**
 * Puts an event on the feed once its change has committed (never before: a rolled-back
 * change must not be shown). Never throws and is not awaited by the request: the feed is a
 * view, and a Redis hiccup must not fail the work it reports.
 */
export function publishEvent(
  services: Pick<Services, 'feed' | 'log'>,
  type: FeedEventType,
  fields: Record<string, unknown>,
  at: number = Date.now(),
): void {
  services.feed
    .publish({ type, at: new Date(at).toISOString(), ...fields })
    .catch((error: unknown) =>
      services.log.warn({ err: error, type }, 'event feed: not published'),
    );
}
