import type { Services } from '../../services.js';
import { publishEvent } from '../events/feed-events.js';

/** How long converged alerts of one incident share one trailing feed event. */
const WINDOW_MS = 250;

export interface ConvergedEvent {
  incident_id: string;
  approval_id: string | null;
  hit_count: number;
}

/**
 * `incident.converged` on the feed, at most twice per incident per 250 ms: the first at once,
 * then one with the highest hit count seen in the window. An alert storm converging on one
 * incident thousands of times a second would otherwise cost a feed entry (a Redis write when
 * distributed) per alert, for a console that can only show the latest count.
 */
export function createConvergedEvents(
  services: Pick<Services, 'feed' | 'log'>,
): (event: ConvergedEvent) => void {
  const windows = new Map<string, { latest?: ConvergedEvent }>();
  return (event) => {
    const open = windows.get(event.incident_id);
    if (open) {
      if (!open.latest || event.hit_count > open.latest.hit_count) open.latest = event;
      return;
    }
    publishEvent(services, 'incident.converged', { ...event });
    const window: { latest?: ConvergedEvent } = {};
    windows.set(event.incident_id, window);
    setTimeout(() => {
      windows.delete(event.incident_id);
      if (window.latest) publishEvent(services, 'incident.converged', { ...window.latest });
    }, WINDOW_MS).unref();
  };
}
