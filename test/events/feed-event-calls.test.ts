import { describe, expectTypeOf, it } from 'vitest';
import type { FeedEvent } from '../../src/features/events/feed-event-types.js';
import { publishEvent } from '../../src/features/events/feed-events.js';
import type { Services } from '../../src/services.js';

/**
 * Checked by `npm run typecheck`, not at run time: a publisher's data is its event's declared
 * data, so a call that drifts from the declaration does not compile. Each `@ts-expect-error`
 * fails the typecheck once the call it marks compiles.
 */
describe('publishEvent', () => {
  it("takes each event's data by its declared type", () => {
    const publishWrongly = (deps: Pick<Services, 'feed' | 'log'>) => {
      // @ts-expect-error a declared field is missing
      publishEvent(deps, 'incident.resolved', { incident_id: 'inc-1' });
      // @ts-expect-error a field the event does not declare
      publishEvent(deps, 'silence.created', { silence_id: 's-1', actor: 'alice', comment: 'c' });
      // @ts-expect-error a value outside the declared ones
      publishEvent(deps, 'signal.handled', { entry_id: '1-0', outcome: 'dropped' });
      // @ts-expect-error an event nobody declared
      publishEvent(deps, 'incident.deleted', { incident_id: 'inc-1' });
    };
    expectTypeOf(publishWrongly).toBeFunction();
    expectTypeOf<Extract<FeedEvent, { type: 'incident.converged' }>>().toEqualTypeOf<
      { type: 'incident.converged'; at: string } & {
        incident_id: string;
        approval_id: string | null;
        hit_count: number;
      }
    >();
  });
});
