import { describe, expect, it } from 'vitest';
import { insertSilence } from '../../src/features/silences/silence-records.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { CONSOLE_TOKEN, maintenanceAlert, postAlert } from './silence-helpers.js';

const COUNT = 10_000;
const MAX_BYTES = 8192;
const DAY = 24 * 60 * 60 * 1000;

/** A silence filling SILENCE_MAX_BYTES: an exact alertname, then regexes near 64 KiB compiled. */
function bodyAtLimits(index: number, now: number) {
  const regexes = Array.from({ length: 6 }, (_, matcher) => {
    const head = `s${index}m${matcher}-[a-z]{1,300}|`;
    return {
      name: `label${matcher}`,
      value: head + 'q'.repeat(1024 - head.length),
      isRegex: true,
      isEqual: true,
    };
  });
  const body = {
    matchers: [
      { name: 'alertname', value: `AtLimits${index}`, isRegex: false, isEqual: true },
      ...regexes,
    ],
    startsAt: new Date(now).toISOString(),
    endsAt: new Date(now + DAY).toISOString(),
    createdBy: 'load',
    comment: '',
  };
  body.comment = 'c'.repeat(MAX_BYTES - Buffer.byteLength(JSON.stringify(body)));
  return body;
}

/**
 * CONTRACT, Under races, crashes and abuse: 10,000 silences at the limits "load at start
 * within 10 s". The heap and the converged alert's throughput they cost are measured by
 * bench/silence-load.ts.
 */
describe.each(backends())('10,000 silences at the limits on %s', (backend) => {
  it('load at a restart within 10 s, and each still mutes', { timeout: 240_000 }, async () => {
    const first = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN } });
    const now = Date.now();
    for (let start = 0; start < COUNT; start += 500) {
      await first.app.services.store.withLock('silences:count', async (tx) => {
        for (let index = start; index < start + 500; index++) {
          const body = bodyAtLimits(index, now);
          expect(Buffer.byteLength(JSON.stringify(body))).toBe(MAX_BYTES);
          await insertSilence(tx, `at-limits-${index}`, {
            ...body,
            startsAt: now,
            endsAt: now + DAY,
            updatedAt: now,
          });
        }
      });
    }
    await first.close();

    const started = performance.now();
    const restarted = await buildTestApp({ reuse: first });
    const startMs = performance.now() - started;
    // The contract's own bound: the whole start, migrations and all, holds the load.
    expect(startMs).toBeLessThan(10_000);

    const last = COUNT - 1;
    const labels = Object.fromEntries(
      Array.from({ length: 6 }, (_, matcher) => [`label${matcher}`, `s${last}m${matcher}-abc`]),
    );
    const alert = { ...maintenanceAlert, alert_name: `AtLimits${last}`, labels };
    expect((await postAlert(restarted.app, alert)).json().status).toBe('silenced');
    const other = { ...alert, labels: { ...labels, label3: 'no' } };
    expect((await postAlert(restarted.app, other)).json().status).not.toBe('silenced');
  });
});
