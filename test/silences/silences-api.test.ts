import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import {
  AUTH,
  CONSOLE_TOKEN,
  createSilence,
  SILENCE,
  SILENCES,
  silenceBody,
} from './silence-helpers.js';

const HOUR = 60 * 60 * 1000;

describe.each(backends())("Alertmanager's silences API on %s (CONTRACT, Silences)", (backend) => {
  const clock = new TestClock();
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      backend,
      clock,
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN },
    }));
  });
  const post = (payload: unknown) =>
    app.inject({ method: 'POST', url: SILENCES, headers: AUTH, payload: payload as object });
  const get = (url: string) => app.inject({ url, headers: AUTH });

  it('creates a silence and answers {"silenceID"}; GET silence/{id} shows it as Alertmanager does', async () => {
    const body = silenceBody(clock.now(), [{ name: 'alertname', value: 'DiskFull' }]);
    const created = await post(body);
    expect(created.statusCode).toBe(200);
    const { silenceID } = created.json();
    expect(silenceID).toMatch(/^[0-9a-f-]{36}$/);
    const shown = await get(`${SILENCE}/${silenceID}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({
      id: silenceID,
      status: { state: 'active' },
      updatedAt: new Date(clock.now()).toISOString(),
      matchers: [{ name: 'alertname', value: 'DiskFull', isRegex: false, isEqual: true }],
      startsAt: body.startsAt,
      endsAt: body.endsAt,
      createdBy: 'alice',
      comment: 'maintenance',
      silenced_alerts: 0,
      recent_silenced: [],
    });
  });

  it('defaults isEqual to true, as the OpenAPI document does', async () => {
    const body = silenceBody(clock.now(), [{ name: 'job', value: 'x' }]);
    (body.matchers as Array<Record<string, unknown>>)[0]!.isEqual = undefined;
    const id = await createSilence(app, JSON.parse(JSON.stringify(body)));
    expect((await get(`${SILENCE}/${id}`)).json().matchers[0].isEqual).toBe(true);
  });

  it('replaces an existing silence when the body carries its id', async () => {
    const id = await createSilence(app, silenceBody(clock.now(), [{ name: 'a', value: '1' }]));
    const replaced = await post(
      silenceBody(clock.now(), [{ name: 'a', value: '2' }], { id, comment: 'longer window' }),
    );
    expect(replaced.json()).toEqual({ silenceID: id });
    const shown = (await get(`${SILENCE}/${id}`)).json();
    expect(shown.matchers[0].value).toBe('2');
    expect(shown.comment).toBe('longer window');
  });

  it('answers 404 for an id that is not a silence, on POST, GET and DELETE', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const replaced = await post(
      silenceBody(clock.now(), [{ name: 'a', value: '1' }], { id: unknown }),
    );
    expect(replaced.statusCode).toBe(404);
    expect((await get(`${SILENCE}/${unknown}`)).json()).toEqual({
      code: 'silence_not_found',
      detail: `Silence not found: ${unknown}`,
    });
    const deleted = await app.inject({
      method: 'DELETE',
      url: `${SILENCE}/${unknown}`,
      headers: AUTH,
    });
    expect(deleted.statusCode).toBe(404);
  });

  it('lists silences with their state: active, then pending, then expired', async () => {
    const { app: fresh } = await buildTestApp({ backend, clock, env: { CONSOLE_TOKEN } });
    const now = clock.now();
    const pending = await createSilence(
      fresh,
      silenceBody(now, [{ name: 'p', value: '1' }], {
        startsAt: new Date(now + HOUR).toISOString(),
        endsAt: new Date(now + 2 * HOUR).toISOString(),
      }),
    );
    const active = await createSilence(fresh, silenceBody(now, [{ name: 'a', value: '1' }]));
    const expired = await createSilence(fresh, silenceBody(now, [{ name: 'e', value: '1' }]));
    const expiring = await fresh.inject({
      method: 'DELETE',
      url: `${SILENCE}/${expired}`,
      headers: AUTH,
    });
    expect(expiring.statusCode).toBe(200);
    const listed = (await fresh.inject({ url: SILENCES, headers: AUTH })).json() as Array<{
      id: string;
      status: { state: string };
    }>;
    expect(listed.map((silence) => [silence.id, silence.status.state])).toEqual([
      [active, 'active'],
      [pending, 'pending'],
      [expired, 'expired'],
    ]);
    const filtered = await fresh.inject({ url: `${SILENCES}?filter=a%3D%221%22`, headers: AUTH });
    expect(filtered.json().map((silence: { id: string }) => silence.id)).toEqual([active]);
  });

  it('DELETE expires a silence: endsAt becomes now, it answers 200, and again 200', async () => {
    const id = await createSilence(app, silenceBody(clock.now(), [{ name: 'x', value: '1' }]));
    clock.advance(1000);
    const deleted = await app.inject({
      method: 'DELETE',
      url: `${SILENCE}/${id}`,
      headers: AUTH,
    });
    expect(deleted.statusCode).toBe(200);
    const shown = (await get(`${SILENCE}/${id}`)).json();
    expect(shown.status.state).toBe('expired');
    expect(shown.endsAt).toBe(new Date(clock.now()).toISOString());
    const again = await app.inject({ method: 'DELETE', url: `${SILENCE}/${id}`, headers: AUTH });
    expect(again.statusCode).toBe(200);
  });

  it('puts silence.created and silence.expired on the feed with silence_id and actor', async () => {
    const id = await createSilence(
      app,
      silenceBody(clock.now(), [{ name: 'feed', value: '1' }], { createdBy: 'bob' }),
    );
    await app.inject({ method: 'DELETE', url: `${SILENCE}/${id}`, headers: AUTH });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const events = (await app.services.feed.after(undefined, 1000))
      .map((entry) => entry.event)
      .filter((event) => event.silence_id === id);
    expect(events).toEqual([
      expect.objectContaining({ type: 'silence.created', silence_id: id, actor: 'bob' }),
      expect.objectContaining({ type: 'silence.expired', silence_id: id, actor: 'bob' }),
    ]);
  });

  describe('validation, as Alertmanager: 400 with a detail naming the problem', () => {
    const now = () => clock.now();
    const cases: Array<[string, () => unknown, RegExp]> = [
      ['no matcher', () => silenceBody(now(), []), /matchers/],
      [
        'only matchers that match the empty string',
        () => silenceBody(now(), [{ name: 'a', value: '.*', isRegex: true }]),
        /at least one matcher must not match the empty string/,
      ],
      [
        'an invalid regex, naming the label',
        () => silenceBody(now(), [{ name: 'pod', value: '(unclosed', isRegex: true }]),
        /Invalid regular expression in matcher "pod": .*missing closing \)/,
      ],
      [
        'endsAt before startsAt',
        () =>
          silenceBody(now(), [{ name: 'a', value: '1' }], {
            startsAt: new Date(now() + 2 * HOUR).toISOString(),
          }),
        /start time must be before end time/,
      ],
      [
        'endsAt in the past',
        () =>
          silenceBody(now(), [{ name: 'a', value: '1' }], {
            startsAt: new Date(now() - 2 * HOUR).toISOString(),
            endsAt: new Date(now() - HOUR).toISOString(),
          }),
        /end time can't be in the past/,
      ],
      [
        'an empty createdBy',
        () => silenceBody(now(), [{ name: 'a', value: '1' }], { createdBy: '' }),
        /createdBy/,
      ],
      [
        'an empty comment',
        () => silenceBody(now(), [{ name: 'a', value: '1' }], { comment: '' }),
        /comment/,
      ],
      [
        'a missing comment',
        () => {
          const body = silenceBody(now(), [{ name: 'a', value: '1' }]);
          body.comment = undefined;
          return JSON.parse(JSON.stringify(body));
        },
        /body\.comment is required/,
      ],
      [
        'a date that is not a date',
        () => silenceBody(now(), [{ name: 'a', value: '1' }], { endsAt: 'soon' }),
        /endsAt/,
      ],
    ];
    it.each(cases)('refuses %s', async (_name, body, detail) => {
      const response = await post(body());
      expect(response.statusCode).toBe(400);
      expect(response.json().detail).toMatch(detail);
    });

    it('refuses a bad filter on the list with 400', async () => {
      const response = await get(`${SILENCES}?filter=${encodeURIComponent('a=~"("')}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().detail).toMatch(/matcher "a"/);
    });
  });

  describe('access, as the read API', () => {
    it('answers 401 Unauthorized without the console token', async () => {
      for (const [method, url] of [
        ['GET', SILENCES],
        ['POST', SILENCES],
        ['GET', `${SILENCE}/x`],
        ['DELETE', `${SILENCE}/x`],
      ] as const) {
        const response = await app.inject({
          method,
          url,
          payload: method === 'POST' ? {} : undefined,
        });
        expect(response.statusCode, `${method} ${url}`).toBe(401);
        expect(response.json()).toEqual({ detail: 'Unauthorized', code: 'unauthorized' });
      }
    });

    it('is closed (403) in prod without CONSOLE_TOKEN', async () => {
      const { app: prod } = await buildTestApp({
        backend,
        env: {
          APP_ENV: 'prod',
          WEBHOOK_SECRET: 'prod-webhook-secret-0123456789abcdef0123',
          RECEIVER_TOKENS: 'prod-receiver-token-0123456789abcdef',
          CHAT_WEBHOOK_SECRET: 'prod-chat-secret-0123456789abcdef',
          ERRTRACKER_CLIENT_SECRET: 'prod-tracker-secret-0123456789abcdef',
        },
      });
      const response = await prod.inject({ url: SILENCES });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({
        code: 'read_api_closed',
        detail: 'Set CONSOLE_TOKEN to use the read API in prod',
      });
    });
  });
});
