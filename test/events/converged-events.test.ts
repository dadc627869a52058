import { describe, expect, it } from 'vitest';
import { createMemoryEventFeed } from '../../src/adapters/memory/memory-event-feed.js';
import { createConvergedEvents } from '../../src/features/intake/converged-events.js';
import type { Services } from '../../src/services.js';
import { waitFor } from '../helpers/wait-for.js';

function feedServices() {
  const feed = createMemoryEventFeed();
  const log = { warn: () => undefined };
  return { feed, services: { feed, log } as unknown as Services };
}

describe('incident.converged on the feed during a storm', () => {
  it('publishes the first at once and the highest count at the end of the window', async () => {
    const { feed, services } = feedServices();
    const publish = createConvergedEvents(services);
    for (let hit = 2; hit <= 500; hit++)
      publish({ incident_id: 'inc-a', approval_id: 'ap-a', hit_count: hit });
    publish({ incident_id: 'inc-b', approval_id: null, hit_count: 2 });

    const first = await feed.after(undefined, 100);
    expect(first.map((entry) => [entry.event.incident_id, entry.event.hit_count])).toEqual([
      ['inc-a', 2],
      ['inc-b', 2],
    ]);
    const all = await waitFor(
      async () => {
        const entries = await feed.after(undefined, 100);
        return entries.length >= 3 ? entries : undefined;
      },
      { what: 'the trailing event', timeoutMs: 2_000 },
    );
    expect(all.map((entry) => [entry.event.incident_id, entry.event.hit_count])).toEqual([
      ['inc-a', 2],
      ['inc-b', 2],
      ['inc-a', 500],
    ]);
    // After the window, the next converged alert is shown at once again.
    publish({ incident_id: 'inc-a', approval_id: 'ap-a', hit_count: 501 });
    const latest = await feed.after(all.at(-1)!.id, 10);
    expect(latest.map((entry) => entry.event.hit_count)).toEqual([501]);
  });
});
