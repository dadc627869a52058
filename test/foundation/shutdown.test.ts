import { describe, expect, it } from 'vitest';
import { backends, buildTestApp } from '../helpers/build-app.js';

describe.each(backends())('graceful shutdown on %s', (backend) => {
  it('finishes in-flight requests, keeps what it answered, then closes its connections', async () => {
    const first = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'true' } });
    const address = await first.app.listen({ port: 0, host: '127.0.0.1' });
    const send = (n: number) =>
      fetch(`${address}/api/v1/webhooks/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          source: 'shutdown',
          alert_name: `S${n}`,
          target: 't',
          severity: 'info',
        }),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as { message_id?: string },
      }));
    const inFlight = Array.from({ length: 40 }, (_, n) => send(n));
    await Promise.race(inFlight);
    const closing = first.close();
    const results = await Promise.all(
      inFlight.map((p) => p.catch(() => ({ status: 0, body: {} as { message_id?: string } }))),
    );
    await closing;
    // Requests already accepted complete; later ones get 503, or no connection once the
    // listener is gone (status 0 here).
    for (const result of results) expect([200, 503, 0]).toContain(result.status);
    const answered = results
      .filter((r) => r.status === 200)
      .map((r) => r.body.message_id as string);
    expect(answered.length).toBeGreaterThan(0);
    await expect(first.app.services.store.ping()).rejects.toThrow();

    const second = await buildTestApp({ reuse: first, env: { SIGNAL_CONSUMER: 'false' } });
    const stored = (await second.app.inject('/api/v1/signals?limit=200')).json();
    const storedIds = new Set(stored.items.map((s: { id: string }) => s.id));
    for (const id of answered) expect(storedIds.has(id)).toBe(true);
  });
});
