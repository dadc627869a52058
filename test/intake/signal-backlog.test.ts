import { describe, expect, it, vi } from 'vitest';
import { SIGNAL_CONSUMER_GROUP } from '../../src/features/intake/signal-consumer.js';
import {
  SIGNALS_STREAM,
  SIGNALS_STREAM_MAX_LENGTH,
} from '../../src/features/intake/signal-schema.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const URL = '/api/v1/webhooks/signals';
const signal = { source: 'overload', alert_name: 'Flood', target: 'api' };
/** Longer than one process's cached look at the backlog. */
const cacheMs = 300;

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function gauge(text: string, name: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

// CONTRACT, Signals under overload
describe.each(backends())('signals under overload on %s', (backend) => {
  it('answers 503 with Retry-After once 10000 signals are unhandled, drops none, and accepts again as the consumer catches up', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const { stream } = app.services;
    // The group exists from the start, though its consumer runs elsewhere.
    const read = { blockMs: 0, claimIdleMs: 60_000 };
    await expect(
      stream.readGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP, 'probe', { count: 1, ...read }),
    ).resolves.toEqual([]);

    const warn = vi.spyOn(app.services.log, 'warn');
    const info = vi.spyOn(app.services.log, 'info');
    const first = await postSigned(app, URL, signal);
    expect(first.statusCode).toBe(200);
    const firstId: string = first.json().message_id;
    // Fill the rest of the backlog quickly, past where the stream would have been trimmed.
    const fill = Array.from({ length: SIGNALS_STREAM_MAX_LENGTH - 1 }, (_v, n) =>
      stream.append(SIGNALS_STREAM, { ...signal, n: String(n) }, SIGNALS_STREAM_MAX_LENGTH),
    );
    await Promise.all(fill);
    await sleep(cacheMs);

    const refused = await postSigned(app, URL, signal);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused.json()).toEqual({
      code: 'signal_backlog_full',
      detail: 'Failed to produce signal: backlog full (10000 signals not yet handled)',
    });
    const fullLines = () =>
      warn.mock.calls.filter(([, message]) => String(message).startsWith('signal backlog full'));
    expect(fullLines()).toHaveLength(1);
    // Nothing accepted was trimmed away: every one is still there for the consumer.
    expect(await stream.length(SIGNALS_STREAM)).toBe(SIGNALS_STREAM_MAX_LENGTH);
    expect((await stream.range(SIGNALS_STREAM, { limit: 1 }))[0]!.id).toBe(firstId);

    const metrics = (await app.inject('/metrics')).body;
    expect(gauge(metrics, 'signals_backlog')).toBe(SIGNALS_STREAM_MAX_LENGTH);
    expect(gauge(metrics, 'signals_oldest_unhandled_age_seconds')).toBeGreaterThanOrEqual(0);

    // The consumer handles half of them: accepted again.
    const taken = await stream.readGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP, 'c', {
      count: 5000,
      ...read,
    });
    expect(taken[0]!.id).toBe(firstId);
    await stream.ack(
      SIGNALS_STREAM,
      SIGNAL_CONSUMER_GROUP,
      taken.map((entry) => entry.id),
    );
    const accepted = await waitFor(
      async () => {
        const response = await postSigned(app, URL, signal);
        return response.statusCode === 200 ? response : undefined;
      },
      { what: 'the webhook to accept again', intervalMs: 50 },
    );
    expect(accepted.json().message_id).toMatch(/^\d+-\d+$/);
    expect(fullLines()).toHaveLength(1);
    expect(
      info.mock.calls.filter(([, message]) => String(message).startsWith('signal backlog below')),
    ).toHaveLength(1);
    await sleep(cacheMs);
    const after = (await app.inject('/metrics')).body;
    expect(gauge(after, 'signals_backlog')).toBe(5001);
  });
});
