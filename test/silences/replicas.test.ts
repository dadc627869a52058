import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import {
  AUTH,
  CONSOLE_TOKEN,
  createSilence,
  maintenanceAlert,
  postAlert,
  SILENCE,
  silenceBody,
} from './silence-helpers.js';

const distributed = backends().includes('distributed');

/** How long until `app` answers the alert with `status`, polling every 20 ms for 3 s. */
async function msUntil(
  app: FastifyInstance,
  alert: Record<string, unknown>,
  status: (s: string) => boolean,
) {
  const started = performance.now();
  while (performance.now() - started < 3000) {
    if (status((await postAlert(app, alert)).json().status)) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * CONTRACT, Silences: "A silence created or expired on one replica takes effect on every
 * replica within one second." Three replicas share one PostgreSQL and one Redis.
 */
describe.runIf(distributed)('silences across replicas (distributed)', () => {
  let first: TestApp;
  let second: TestApp;
  let third: TestApp;
  // Built before the tests, not while they are collected: without PostgreSQL the suite skips.
  beforeAll(async () => {
    first = await buildTestApp({
      backend: 'distributed',
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN },
    });
    second = await buildTestApp({ reuse: first });
    third = await buildTestApp({ reuse: first });
  });

  it('a silence made on one replica mutes on the others within a second, and its expiry too', async () => {
    const alert = { ...maintenanceAlert, alert_name: 'ReplicaMuted', target_resource: 'replica-a' };
    // Warm: both replicas know the alert unmuted.
    for (const replica of [second, third]) {
      expect((await postAlert(replica.app, alert)).json().status).not.toBe('silenced');
    }
    const id = await createSilence(
      first.app,
      silenceBody(Date.now(), [{ name: 'alertname', value: 'ReplicaMuted' }]),
    );
    const [onSecond, onThird] = await Promise.all(
      [second, third].map((replica) => msUntil(replica.app, alert, (s) => s === 'silenced')),
    );
    expect(onSecond).toBeLessThan(1000);
    expect(onThird).toBeLessThan(1000);

    const expired = await third.app.inject({
      method: 'DELETE',
      url: `${SILENCE}/${id}`,
      headers: AUTH,
    });
    expect(expired.statusCode).toBe(200);
    const [onFirst, onSecondAgain] = await Promise.all(
      [first, second].map((replica) => msUntil(replica.app, alert, (s) => s !== 'silenced')),
    );
    expect(onFirst).toBeLessThan(1000);
    expect(onSecondAgain).toBeLessThan(1000);
  });

  it('counts what each replica muted on the one silence', async () => {
    const alert = {
      ...maintenanceAlert,
      alert_name: 'CountedAcross',
      target_resource: 'replica-b',
    };
    const id = await createSilence(
      second.app,
      silenceBody(Date.now(), [{ name: 'alertname', value: 'CountedAcross' }]),
    );
    await msUntil(first.app, alert, (s) => s === 'silenced');
    await msUntil(third.app, alert, (s) => s === 'silenced');
    for (const replica of [first, second, third]) await postAlert(replica.app, alert);
    // Each replica writes its counts within a second; reading on one flushes its own.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const shown = (await first.app.inject({ url: `${SILENCE}/${id}`, headers: AUTH })).json();
    expect(shown.silenced_alerts).toBeGreaterThanOrEqual(5);
  });
});
