import type { Services } from '../../services.js';
import type { FeedEventData, FeedEventName } from './feed-event-types.js';

/**
 * Puts an event on the feed once its change has committed (never before: a rolled-back
 * change must not be shown). Never throws and is not awaited by the request: the feed is a
 * view, and a Redis hiccup must not fail the work it reports. The data is typed by the
 * event's declaration (feed-event-types.ts), so a publisher cannot drift from what the
 * console reads.
 */
export function publishEvent<K extends FeedEventName>(
  services: Pick<Services, 'feed' | 'log'>,
  type: K,
  fields: NoInfer<FeedEventData<K>>,
  at: number = Date.now(),
): void {
  services.feed
    .publish({ type, at: new Date(at).toISOString(), ...fields })
    .catch((error: unknown) =>
      services.log.warn({ err: error, type }, 'event feed: not published'),
    );
}
