import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/error-codes.js';
import { errors, HttpError } from '../../src/errors.js';
import { buildTestApp, postSigned, signBody } from '../helpers/build-app.js';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * Every error answer is `{"detail", "code"}`: the code is stable and maps to one status in the
 * catalog (src/errors.ts); clients, the console first, decide by the code and never by the
 * detail's wording.
 */

/** Each factory of the catalog, called with arguments of its kind. */
function everyCatalogError(): HttpError[] {
  return Object.entries(errors).map(([name, make]) => {
    const built = (make as (...args: unknown[]) => unknown)(
      ...(name === 'notFound'
        ? ['incident_not_found', 'x']
        : name === 'decisionRefused'
          ? ['already_signed', 'x']
          : name === 'requestRefused'
            ? [405, 'x']
            : ['x', 'x']),
    );
    expect(built, name).toBeInstanceOf(HttpError);
    return built as HttpError;
  });
}

/** `detail === …`, `… !== detail`, `detail.includes(…)`: deciding by the wording. */
const DETAIL_COMPARED = /detail\s*[!=]==|[!=]==\s*[\w.]*detail\b|detail\.(includes|startsWith)\(/i;

describe('error codes', () => {
  it('each catalog error carries a code whose status the catalog maps', () => {
    const built = everyCatalogError();
    expect(built.length).toBeGreaterThan(50);
    for (const error of built) {
      expect(error.body).toEqual({ detail: error.detail, code: error.code });
      if (error.code !== 'request_refused') {
        expect(error.statusCode, error.code).toBe(ERROR_STATUS[error.code]);
      }
    }
  });

  it('every code of the catalog is answered by some error', () => {
    const used = new Set<ErrorCode>(everyCatalogError().map((error) => error.code));
    for (const code of [
      'approval_not_found',
      'silence_not_found',
      'heartbeat_not_found',
      'external_event_not_found',
      'task_not_found',
      'approval_already_decided',
      'already_processed',
      'signal_not_produced',
    ] as const) {
      used.add(code);
    }
    expect(Object.keys(ERROR_STATUS).filter((code) => !used.has(code as ErrorCode))).toEqual([]);
  });

  it('the console decides by code, never by comparing a detail', () => {
    const dir = path.join(REPO_ROOT, 'console/src');
    const comparisons = fs
      .readdirSync(dir)
      .filter((file) => /\.tsx?$/.test(file) && !file.includes('generated'))
      .flatMap((file) =>
        fs
          .readFileSync(path.join(dir, file), 'utf8')
          .split('\n')
          .map((line, index) => ({ where: `${file}:${index + 1}`, line }))
          .filter(({ line }) => DETAIL_COMPARED.test(line) && !/typeof [\w.]*detail/.test(line)),
      );
    expect(comparisons.map((found) => found.where)).toEqual([]);
  });
});

const SECRET = 'webhook-secret-for-codes';

describe('error answers on the wire', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: {
        CONSOLE_TOKEN: 'console-token',
        OPERATOR_KEYS: 'alice:alice-key',
        WEBHOOK_SECRET: SECRET,
      },
    }));
  });
  const bearer = { authorization: 'Bearer console-token' };

  it.each<[string, () => Promise<{ statusCode: number; json: () => unknown }>, ErrorCode]>([
    ['an unknown route', () => app.inject('/api/v1/nowhere'), 'route_not_found'],
    ['a read without the token', () => app.inject('/api/v1/incidents'), 'unauthorized'],
    [
      'a missing incident',
      () => app.inject({ url: '/api/v1/incidents/inc-missing', headers: bearer }),
      'incident_not_found',
    ],
    [
      'a bad list filter',
      () => app.inject({ url: '/api/v1/incidents?status=burning', headers: bearer }),
      'bad_query',
    ],
    [
      'a body that is not JSON',
      () =>
        app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/alerts',
          headers: { 'content-type': 'application/json', 'x-signature-256': signBody(SECRET, '{') },
          payload: '{',
        }),
      'bad_body',
    ],
    [
      'an alert with a wrong signature',
      () =>
        app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/alerts',
          headers: { 'x-signature-256': `sha256=${'0'.repeat(64)}` },
          payload: { alert_name: 'A', severity: 'critical' },
        }),
      'hmac_failed',
    ],
    [
      'a signed alert of the wrong shape',
      () => postSigned(app, '/api/v1/webhooks/alerts', { severity: 7 }, SECRET),
      'validation_failed',
    ],
    [
      'a decision with a wrong operator key',
      () =>
        app.inject({
          method: 'POST',
          url: '/api/v1/approvals/a-1/decision',
          headers: { ...bearer, 'x-operator-id': 'alice', 'x-operator-key': 'wrong' },
          payload: { decision: 'approve' },
        }),
      'operator_invalid',
    ],
    [
      'a decision on a missing approval',
      () =>
        app.inject({
          method: 'POST',
          url: '/api/v1/approvals/a-missing/decision',
          headers: { ...bearer, 'x-operator-id': 'alice', 'x-operator-key': 'alice-key' },
          payload: { decision: 'approve' },
        }),
      'approval_not_found',
    ],
  ])('%s answers its code with the status the catalog maps', async (_case, send, code) => {
    const answer = await send();
    expect(answer.json()).toEqual({ detail: expect.any(String), code });
    expect(answer.statusCode).toBe(ERROR_STATUS[code]);
  });
});
