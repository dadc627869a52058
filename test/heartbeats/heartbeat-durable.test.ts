import { describe, expect, it } from 'vitest';
import { HEARTBEAT_MISSING_JOB } from '../../src/features/heartbeats/heartbeat-watch.js';
import { backends, buildTestApp, TestClock } from '../helpers/build-app.js';
import { queueOutage } from '../helpers/follow-up-jobs.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A missed beat's incident is never lost: the expiry and the job that opens the incident
 * commit together, so a queue that refuses the job at that moment only delays the incident.
 */
describe.each(backends())('a heartbeat expiring while the queue is down, on %s', (backend) => {
  it('opens its incident once the queue is back', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({ backend, clock, env: { SIGNAL_CONSUMER: 'false' } });
    const outage = queueOutage(app, HEARTBEAT_MISSING_JOB.name);
    await app.inject({
      method: 'POST',
      url: '/api/v1/heartbeats/billing-export',
      payload: { timeout_seconds: 10 },
    });
    clock.advance(11_000);
    await waitFor(async () => ((await outage.struck()) ? true : undefined), {
      what: 'the refused job',
      timeoutMs: 12_000,
    });
    expect((await app.inject('/api/v1/heartbeats')).json().items[0].status).toBe('expired');
    expect((await app.inject('/api/v1/incidents')).json().items).toEqual([]);

    await outage.end();
    const incidents = await waitFor(
      async () => {
        const items = (await app.inject('/api/v1/incidents')).json().items;
        return items.length > 0 ? items : undefined;
      },
      { what: 'the incident relayed after the outage', timeoutMs: 15_000 },
    );
    expect(incidents).toMatchObject([
      { alert_name: 'HeartbeatMissing', target_resource: 'billing-export' },
    ]);
  }, 40_000);
});
