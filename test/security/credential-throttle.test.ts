import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { startServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * CONTRACT, Hostile clients: failed credentials logged, throttled per address; weak ones
 * refused. CONTRACT, Under races, crashes and abuse: throttled per credential kind too.
 */

const KEY = 'alice-key-0123456789';
const BOB_KEY = 'bob-key-0123456789ab';
const CONSOLE_TOKEN = 'console-token-0123456789';
const RECEIVER_TOKEN = 'receiver-token-0123456789';
const CHAT_SECRET = 'chat-secret-0123456789';
const ENV = {
  OPERATOR_KEYS: `alice:${KEY},bob:${BOB_KEY}`,
  CONSOLE_TOKEN,
  RECEIVER_TOKENS: RECEIVER_TOKEN,
  CHAT_WEBHOOK_SECRET: CHAT_SECRET,
  SIGNAL_CONSUMER: 'false',
};

function outputHas(server: { output(): string }, text: string) {
  return waitFor(async () => (server.output().includes(text) ? true : undefined), {
    timeoutMs: 5000,
    what: text,
  });
}

function me(test: TestApp, key: string, remoteAddress = '127.0.0.1', id = 'alice') {
  return test.app.inject({
    method: 'GET',
    url: '/api/v1/operators/me',
    remoteAddress,
    headers: { 'x-operator-id': id, 'x-operator-key': key },
  });
}

function receiver(test: TestApp, token: string, remoteAddress = '127.0.0.1') {
  return test.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/alertmanager',
    remoteAddress,
    headers: { authorization: `Bearer ${token}` },
    payload: { alert_name: 'Throttled', severity: 'warning' },
  });
}

function chatWebhook(test: TestApp, secret: string | undefined, remoteAddress = '127.0.0.1') {
  return test.app.inject({
    method: 'POST',
    url: '/api/v1/chatops/webhook',
    remoteAddress,
    headers: secret === undefined ? {} : { 'x-telegram-bot-api-secret-token': secret },
    payload: { update_id: 1 },
  });
}

function readApi(test: TestApp, token: string | undefined, remoteAddress = '127.0.0.1') {
  return test.app.inject({
    method: 'GET',
    url: '/api/v1/incidents',
    remoteAddress,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
}

describe.each(backends())('failed credentials on %s, throttled per kind', (backend) => {
  it('GET /operators/me answers the id for the right key and 401 for a wrong one', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    const right = await me(test, KEY);
    expect(right.statusCode).toBe(200);
    expect(right.json()).toEqual({ id: 'alice' });
    const wrong = await me(test, 'nope');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      detail: 'Invalid operator credentials',
      code: 'operator_invalid',
    });
  });

  it('after 10 wrong keys for alice from one address, routes taking her key answer it 429, even with the right key', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await me(test, `guess-${attempt}`)).statusCode).toBe(401);
    }
    const blocked = await me(test, KEY);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(50);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(blocked.json()).toEqual({
      code: 'too_many_failed_credentials',
      detail: 'Too many failed credentials from this address; retry later',
    });
    const decision = await test.app.inject({
      method: 'POST',
      url: '/api/v1/approvals/some-id/decision',
      headers: {
        authorization: `Bearer ${CONSOLE_TOKEN}`,
        'x-operator-id': 'alice',
        'x-operator-key': KEY,
      },
      payload: { decision: 'approve' },
    });
    expect(decision.statusCode).toBe(429);
    // Other addresses are not affected, and open routes stay open to the blocked one.
    expect((await me(test, KEY, '10.0.0.9')).statusCode).toBe(200);
    const health = await test.app.inject({
      method: 'GET',
      url: '/api/v1/webhooks/errtracker/health',
    });
    expect(health.statusCode).toBe(200);
  });

  it('ten wrong keys for alice never lock out bob, nor the console token or the receiver', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 12; attempt++) await me(test, `guess-${attempt}`);
    expect((await me(test, KEY)).statusCode).toBe(429);
    const bob = await me(test, BOB_KEY, '127.0.0.1', 'bob');
    expect(bob.statusCode).toBe(200);
    expect(bob.json()).toEqual({ id: 'bob' });
    expect((await readApi(test, CONSOLE_TOKEN)).statusCode).toBe(200);
    expect((await receiver(test, RECEIVER_TOKEN)).statusCode).toBe(200);
    expect((await chatWebhook(test, CHAT_SECRET)).statusCode).toBe(200);
  });

  it('an address naming a new operator id with each wrong key is blocked from every operator key after 100 in a minute', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await me(test, 'wrong', '10.7.7.7', `nobody-${attempt}`);
      expect(answer.statusCode).toBe(401);
    }
    const next = await me(test, 'wrong', '10.7.7.7', 'nobody-else');
    expect(next.statusCode).toBe(429);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(50);
    const alice = await me(test, KEY, '10.7.7.7');
    expect(alice.statusCode).toBe(429);
    expect(Number(alice.headers['retry-after'])).toBeGreaterThan(50);
    expect(Number(alice.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await me(test, BOB_KEY, '10.7.7.7', 'bob')).statusCode).toBe(429);
    // Only operator keys, and only that address.
    expect((await readApi(test, CONSOLE_TOKEN, '10.7.7.7')).statusCode).toBe(200);
    expect((await me(test, KEY, '10.7.7.8')).statusCode).toBe(200);
  });

  it('ninety-nine wrong keys over many ids leave the right key of an operator with no failures usable', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 99; attempt++) {
      expect((await me(test, 'wrong', '10.7.7.9', `nobody-${attempt}`)).statusCode).toBe(401);
    }
    expect((await me(test, KEY, '10.7.7.9')).statusCode).toBe(200);
  });

  it('ten wrong console tokens lock the address out of the console token only, never the Alertmanager receiver', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await readApi(test, `wrong-${attempt}`)).statusCode).toBe(401);
    }
    expect((await readApi(test, CONSOLE_TOKEN)).statusCode).toBe(429);
    const alert = await receiver(test, RECEIVER_TOKEN);
    expect(alert.statusCode).toBe(200);
    expect(alert.json()).toMatchObject({ status: 'created' });
    expect((await me(test, KEY)).statusCode).toBe(200);
    expect((await chatWebhook(test, CHAT_SECRET)).statusCode).toBe(200);
    // Another address still gets the console's routes.
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.9')).statusCode).toBe(200);
  });

  it('ten wrong receiver tokens lock the address out of the receiver only', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await receiver(test, `wrong-${attempt}`)).statusCode).toBe(401);
    }
    expect((await receiver(test, RECEIVER_TOKEN)).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN)).statusCode).toBe(200);
    expect((await receiver(test, RECEIVER_TOKEN, '10.0.0.9')).statusCode).toBe(200);
  });

  it('wrong chat webhook secret tokens count as failed credentials, under their own kind', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    const answers: number[] = [];
    for (let attempt = 0; attempt < 15; attempt++) {
      answers.push((await chatWebhook(test, `wrong-secret-${attempt}`)).statusCode);
    }
    expect(answers).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    const blocked = await chatWebhook(test, CHAT_SECRET);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(50);
    expect((await receiver(test, RECEIVER_TOKEN)).statusCode).toBe(200);
    expect((await readApi(test, CONSOLE_TOKEN)).statusCode).toBe(200);
    expect((await chatWebhook(test, CHAT_SECRET, '10.0.0.9')).statusCode).toBe(200);
  });

  it('a burst of parallel guesses gets exactly ten evaluated (401), the rest 429', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, index) => me(test, `parallel-${index}`)),
    );
    const counts = new Map<number, number>();
    for (const answer of answers)
      counts.set(answer.statusCode, (counts.get(answer.statusCode) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ 401: 10, 429: 50 });
  });

  it('a request without any credential is not counted', async () => {
    const test = await buildTestApp({ backend, env: ENV });
    for (let attempt = 0; attempt < 20; attempt++) {
      expect((await readApi(test, undefined)).statusCode).toBe(401);
      expect((await chatWebhook(test, undefined)).statusCode).toBe(401);
    }
    expect((await readApi(test, CONSOLE_TOKEN)).statusCode).toBe(200);
  });
});

describe('canaries take operator keys, so a wrong one there counts too', () => {
  it('after 10 canaries with wrong keys, the address gets 429 even with the right key', async () => {
    const test = await buildTestApp({ env: ENV });
    const canary = (key: string) =>
      test.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/errtracker/error',
        headers: { 'x-operator-id': 'alice', 'x-operator-key': key },
        payload: { action: 'triggered', data: { issue: { id: 'platform-canary-1' } } },
      });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await canary(`guess-${attempt}`)).statusCode).toBe(401);
    }
    expect((await canary(KEY)).statusCode).toBe(429);
    expect((await me(test, KEY)).statusCode).toBe(429);
  });
});

describe('the throttle holds across replicas sharing Redis', () => {
  it.runIf(backends().includes('distributed'))(
    'five failures on each of two replicas block the address on both',
    async () => {
      const first = await buildTestApp({ backend: 'distributed', env: ENV });
      const second = await buildTestApp({ reuse: first });
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await me(first, `guess-a${attempt}`)).statusCode).toBe(401);
        expect((await me(second, `guess-b${attempt}`)).statusCode).toBe(401);
      }
      expect((await me(first, KEY)).statusCode).toBe(429);
      expect((await me(second, KEY)).statusCode).toBe(429);
      expect((await me(second, KEY, '10.0.0.9')).statusCode).toBe(200);
    },
  );

  it.runIf(backends().includes('distributed'))(
    'a parallel burst spread over two replicas still gets exactly ten evaluated',
    async () => {
      const first = await buildTestApp({ backend: 'distributed', env: ENV });
      const second = await buildTestApp({ reuse: first });
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          me(index % 2 ? first : second, `spread-${index}`, '10.1.2.3'),
        ),
      );
      expect(answers.filter((answer) => answer.statusCode === 401)).toHaveLength(10);
      expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(50);
    },
  );

  it.runIf(backends().includes('distributed'))(
    'wrong keys for ever new ids spread over two replicas in parallel get exactly 100 evaluated',
    async () => {
      const first = await buildTestApp({ backend: 'distributed', env: ENV });
      const second = await buildTestApp({ reuse: first });
      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, index) =>
          me(index % 2 ? first : second, 'wrong', '10.1.2.4', `nobody-${index}`),
        ),
      );
      expect(answers.filter((answer) => answer.statusCode === 401)).toHaveLength(100);
      expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(50);
      expect((await me(first, KEY, '10.1.2.4')).statusCode).toBe(429);
      expect((await me(second, BOB_KEY, '10.1.2.4', 'bob')).statusCode).toBe(429);
    },
  );
});

describe('the log of a failed credential', () => {
  it('is a warn line with the client address and operator id, never the value tried', async () => {
    const tried = 'tried-value-XYZ-987654321';
    const server = await startServerProcess({
      ...ENV,
      PORT: '0',
      LOG_LEVEL: 'info',
      APP_ENV: 'staging',
    });
    await fetch(`${server.url}/api/v1/operators/me`, {
      headers: { 'x-operator-id': 'alice', 'x-operator-key': tried },
    });
    await fetch(`${server.url}/api/v1/incidents`, {
      headers: { authorization: `Bearer ${tried}` },
    });
    await fetch(`${server.url}/api/v1/chatops/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': tried },
      body: '{}',
    });
    await outputHas(server, 'failed credential: chat webhook secret');
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('failed credential'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      level: 40,
      client: '127.0.0.1',
      operator: 'alice',
      credential: 'operator key',
      route: 'GET /api/v1/operators/me',
    });
    expect(lines[1]).toMatchObject({ level: 40, client: '127.0.0.1', credential: 'console token' });
    expect(lines[2]).toMatchObject({
      level: 40,
      client: '127.0.0.1',
      credential: 'chat webhook secret',
    });
    expect(server.output()).not.toContain(tried);
  });
});

describe('the log of wrong keys for ever new operator ids', () => {
  it('stops at one line saying the block once the address is blocked over all ids', async () => {
    const server = await startServerProcess({
      ...ENV,
      PORT: '0',
      LOG_LEVEL: 'info',
      APP_ENV: 'staging',
    });
    for (let attempt = 0; attempt < 120; attempt++) {
      const answer = await fetch(`${server.url}/api/v1/operators/me`, {
        headers: { 'x-operator-id': `nobody-${attempt}`, 'x-operator-key': 'wrong' },
      });
      expect(answer.status).toBe(attempt < 100 ? 401 : 429);
    }
    await outputHas(server, 'address blocked for a minute over all ids');
    const lines = server.output().split('\n');
    expect(lines.filter((line) => line.includes('failed credential: operator key'))).toHaveLength(
      100,
    );
    const blockLines = lines.filter((line) => line.includes('address blocked'));
    expect(blockLines).toHaveLength(1);
    expect(JSON.parse(blockLines[0]!)).toMatchObject({
      level: 40,
      client: '127.0.0.1',
      credential: 'operator key',
    });
  });
});

describe('weak credentials: refused at start in prod, a warning elsewhere', () => {
  const weak = {
    OPERATOR_KEYS: 'alice:short',
    CONSOLE_TOKEN: 'short-token',
    RECEIVER_TOKENS: `${RECEIVER_TOKEN},short`,
    CHAT_WEBHOOK_SECRET: 'short-secret',
  };

  it.each(Object.entries(weak))(
    '%s shorter than 16 characters stops a prod start, naming it',
    (name, value) => {
      const env = { ...ENV, APP_ENV: 'prod', [name]: value };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(`${name}: must be at least 16 characters in prod`);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as Error).message).not.toContain(
          value.split(',').at(-1)!.replace(/^.*:/, ''),
        );
      }
    },
  );

  it('elsewhere each is a warn line at start', async () => {
    const server = await startServerProcess({ ...weak, PORT: '0', APP_ENV: 'staging' });
    await outputHas(server, 'CHAT_WEBHOOK_SECRET holds');
    for (const name of Object.keys(weak)) {
      expect(server.output()).toContain(`${name} holds a credential shorter than 16 characters`);
    }
    expect(server.output()).not.toContain('short-token');
  });
});
