import { beforeAll, describe, expect, it } from 'vitest';
import { POST_READBACKS } from '../../src/features/readbacks/catalog/post-readbacks.js';
import { redactDocument } from '../../src/features/readbacks/redaction.js';
import type { TestApp } from '../helpers/build-app.js';
import { describeConsoleTokenGuard } from '../helpers/security-checks.js';
import { AGENTS, copyExamples, readbackApp, readbackDir } from './readback-helpers.js';

const TOKEN = 'console-token-for-readbacks';
const BODY_TAKING = POST_READBACKS.filter((entry) => entry.body !== undefined);

describeConsoleTokenGuard(
  'readback POSTs',
  TOKEN,
  POST_READBACKS.map((entry) => ({
    method: 'POST' as const,
    url: `${AGENTS}/${entry.name}`,
    ...(entry.body ? { payload: { refs: [] } } : {}),
  })),
  async () => {
    const dir = readbackDir();
    copyExamples(dir);
    return (await readbackApp({ dir, env: { CONSOLE_TOKEN: TOKEN } })).app;
  },
);

describe('readback GETs stay open with CONSOLE_TOKEN (spec endpoints)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    const dir = readbackDir();
    copyExamples(dir);
    ({ app } = await readbackApp({ dir, env: { CONSOLE_TOKEN: TOKEN } }));
  });
  it('a committed readback needs no token', async () => {
    expect((await app.inject(`${AGENTS}/agent-report-status-board`)).statusCode).toBe(200);
  });
});

describe('deep bodies on the validating POSTs (CONTRACT, Bad input)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    const dir = readbackDir();
    copyExamples(dir);
    ({ app } = await readbackApp({ dir }));
  });

  it.each(BODY_TAKING.map((entry) => entry.name))(
    '%s: 1,700 nested arrays are a 400 naming the problem, not the E-SNAP 500',
    async (name) => {
      const response = await app.inject({
        method: 'POST',
        url: `${AGENTS}/${name}`,
        payload: `{"refs":${'['.repeat(1700)}${']'.repeat(1700)}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        code: 'bad_body',
        detail: 'Request body nests arrays and objects deeper than 64 levels',
      });
    },
  );

  it.each(BODY_TAKING.map((entry) => entry.name))('%s: invalid UTF-8 is a 400', async (name) => {
    const response = await app.inject({
      method: 'POST',
      url: `${AGENTS}/${name}`,
      payload: Buffer.concat([
        Buffer.from('{"refs":["'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"]}'),
      ]),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      detail: 'Request body is not valid UTF-8',
      code: 'bad_body',
    });
  });
});

describe('redaction keeps keys that name Object.prototype members', () => {
  it('a `__proto__` key stays an ordinary, redacted entry instead of vanishing', () => {
    const document = JSON.parse(
      '{"__proto__":{"host":"10.1.2.3"},"constructor":"db.internal","kept":"192.168.0.9:5432"}',
    ) as Record<string, unknown>;
    const redacted = redactDocument(document) as Record<string, unknown>;
    expect(Object.keys(redacted)).toEqual(['__proto__', 'constructor', 'kept']);
    expect(Object.getOwnPropertyDescriptor(redacted, '__proto__')?.value).toEqual({
      host: '[redacted-ip]',
    });
    expect(redacted.constructor).toBe('[redacted-host]');
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(JSON.stringify(redacted)).toBe(
      '{"__proto__":{"host":"[redacted-ip]"},"constructor":"[redacted-host]","kept":"[redacted-ip]"}',
    );
  });
});
