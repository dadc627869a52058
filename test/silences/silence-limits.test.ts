import { beforeAll, describe, expect, it } from 'vitest';
import { insertSilence } from '../../src/features/silences/silence-records.js';
import { backends, buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import {
  AUTH,
  CONSOLE_TOKEN,
  createSilence,
  maintenanceAlert,
  postAlert,
  SILENCE,
  SILENCES,
  silenceBody,
} from './silence-helpers.js';

const HOUR = 60 * 60 * 1000;

/**
 * CONTRACT, Under races, crashes and abuse: "Silences are bounded". At most SILENCES_MAX
 * unexpired silences, each at most SILENCE_MAX_BYTES as JSON; a regex matcher whose pattern
 * exceeds 1,024 characters, or whose compiled form exceeds 64 KiB, is refused with a 400
 * naming the limit.
 */
describe.each(backends())('silences are bounded on %s', (backend) => {
  const clock = new TestClock();
  let first: TestApp;
  let app: TestApp['app'];
  beforeAll(async () => {
    first = await buildTestApp({
      backend,
      clock,
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN, SILENCES_MAX: '3' },
    });
    ({ app } = first);
  });
  const post = (payload: unknown) =>
    app.inject({ method: 'POST', url: SILENCES, headers: AUTH, payload: payload as object });
  const expire = (id: string) =>
    app.inject({ method: 'DELETE', url: `${SILENCE}/${id}`, headers: AUTH });
  const body = (value: string, extra: Record<string, unknown> = {}) =>
    silenceBody(clock.now(), [{ name: 'alertname', value }], extra);
  const tooMany =
    'too many silences: 3 unexpired silences already (SILENCES_MAX); expire one first';

  it('refuses a silence past SILENCES_MAX unexpired ones, counting only the unexpired', async () => {
    const ids = [];
    for (const value of ['A', 'B', 'C']) ids.push(await createSilence(app, body(value)));
    const refused = await post(body('D'));
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ detail: tooMany, code: 'silence_invalid' });

    // Replacing an unexpired silence keeps the count.
    const replaced = await post(body('A2', { id: ids[0] }));
    expect(replaced.statusCode).toBe(200);

    // An expired silence no longer counts, though it is still listed.
    expect((await expire(ids[1]!)).statusCode).toBe(200);
    await createSilence(app, body('D'));
    expect((await post(body('E'))).json()).toEqual({ detail: tooMany, code: 'silence_invalid' });

    // Renewing the expired one would make a fourth unexpired silence.
    const renewed = await post(body('B', { id: ids[1] }));
    expect(renewed.statusCode).toBe(400);
    expect(renewed.json()).toEqual({ detail: tooMany, code: 'silence_invalid' });

    // Once they all ran out, there is room again.
    clock.advance(2 * HOUR);
    for (const value of ['F', 'G', 'H']) await createSilence(app, body(value));
    expect((await post(body('I'))).statusCode).toBe(400);
    clock.advance(2 * HOUR);
  });

  it('lets exactly SILENCES_MAX of many concurrent creations through, over two replicas', async () => {
    clock.advance(2 * HOUR);
    const other = await buildTestApp({ reuse: first, clock });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        (index % 2 === 0 ? app : other.app).inject({
          method: 'POST',
          url: SILENCES,
          headers: AUTH,
          payload: body(`concurrent-${index}`),
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([...Array(3).fill(200), ...Array(9).fill(400)]);
    await other.close();
    clock.advance(2 * HOUR);
  });

  it('refuses a silence larger than SILENCE_MAX_BYTES as JSON, naming the limit', async () => {
    clock.advance(2 * HOUR);
    const large = body('Large', { comment: 'x'.repeat(8192) });
    const bytes = Buffer.byteLength(JSON.stringify(large));
    const refused = await post(large);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: 'silence_invalid',
      detail: `silence is ${bytes} bytes as JSON, more than SILENCE_MAX_BYTES (8192)`,
    });
    // Just within the limit: accepted.
    const within = body('Large', { comment: '' });
    const room = 8192 - Buffer.byteLength(JSON.stringify(within));
    const fits = await post(body('Large', { comment: 'x'.repeat(room) }));
    expect(fits.statusCode).toBe(200);
    clock.advance(2 * HOUR);
  });

  it('refuses a regex matcher whose pattern is longer than 1,024 characters, naming the limit', async () => {
    clock.advance(2 * HOUR);
    const long = 'a'.repeat(1025);
    const refused = await post(
      silenceBody(clock.now(), [{ name: 'job', value: long, isRegex: true }]),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toContain('1024');
    // A list filter is held to the same limit.
    const filtered = await app.inject({
      url: `${SILENCES}?filter=${encodeURIComponent(`job=~"${long}"`)}`,
      headers: AUTH,
    });
    expect(filtered.statusCode).toBe(400);
    expect(filtered.json()).toEqual({
      code: 'silence_invalid',
      detail: 'regex matcher "job" has a pattern of 1025 characters, more than 1024',
    });
    const atLimit = await post(
      silenceBody(clock.now(), [{ name: 'job', value: 'a'.repeat(1024), isRegex: true }]),
    );
    expect(atLimit.statusCode).toBe(200);
    clock.advance(2 * HOUR);
  });

  it('refuses a regex matcher that compiles to more than 64 KiB, naming the limit', async () => {
    clock.advance(2 * HOUR);
    // 2,004 RE2 instructions of 40 bytes: the pattern of a replica run out of memory.
    const refused = await post(
      silenceBody(clock.now(), [
        { name: 'alertname', value: 'Big' },
        { name: 'job', value: '[A-Za-z0-9]{0,1000}', isRegex: true },
      ]),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: 'silence_invalid',
      detail: 'the regex of matcher "job" compiles to 80160 bytes, more than 65536 (64 KiB)',
    });
    // 1,637 instructions, 65,480 bytes: within the limit; two more pass it.
    const within = await post(
      silenceBody(clock.now(), [{ name: 'job', value: '[a-z]{1,817}', isRegex: true }]),
    );
    expect(within.statusCode).toBe(200);
    const over = await post(
      silenceBody(clock.now(), [{ name: 'job', value: '[a-z]{1,818}', isRegex: true }]),
    );
    expect(over.json()).toEqual({
      code: 'silence_invalid',
      detail: 'the regex of matcher "job" compiles to 65560 bytes, more than 65536 (64 KiB)',
    });
    clock.advance(2 * HOUR);
  });
});

/**
 * A silence stored before the limits (or under larger ones) is not compiled at start: the
 * replica starts, and a regex past the limits mutes nothing rather than taking the heap.
 */
describe.each(backends())('silences stored past the limits, on %s', (backend) => {
  it('start without compiling them, and mute nothing', async () => {
    const clock = new TestClock();
    const first = await buildTestApp({
      backend,
      clock,
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN },
    });
    const matchers = [
      { name: 'alertname', value: 'StoredPastLimits', isRegex: false, isEqual: true },
      ...Array.from({ length: 99 }, () => ({
        name: 'namespace',
        value: '[A-Za-z0-9]{0,1000}',
        isRegex: true,
        isEqual: true,
      })),
    ];
    const now = clock.now();
    for (let index = 0; index < 5; index++) {
      await insertSilence(first.app.services.store.db, `stored-${index}`, {
        matchers,
        startsAt: now,
        endsAt: now + HOUR,
        updatedAt: now,
        createdBy: 'alice',
        comment: 'stored before the limits',
      });
    }
    await first.close();
    const restarted = await buildTestApp({ reuse: first, clock });
    const alert = { ...maintenanceAlert, alert_name: 'StoredPastLimits', namespace: 'shop' };
    const answer = await postAlert(restarted.app, alert);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().status).not.toBe('silenced');
    // It is still listed, as stored.
    const listed = await restarted.app.inject({ url: SILENCES, headers: AUTH });
    expect(listed.json()).toHaveLength(5);
  });
});
