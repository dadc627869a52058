import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { type FrozenPostgres, freezePostgres } from '../helpers/frozen-postgres.js';
import { openIncident as openIncidentIn, timed } from '../helpers/outage-requests.js';
import {
  type PrivatePostgres,
  postgresBinDir,
  startPrivatePostgres,
} from '../helpers/private-services.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * CONTRACT, Under races, crashes and abuse: "With Redis or PostgreSQL accepting connections
 * but never answering, a request that needs them answers 503 within 2 s (`Retry-After`), and
 * answers normally again within 5 s of them coming back." On a private PostgreSQL (never the
 * shared one) whose every process is stopped with SIGSTOP.
 */

/** The contract's 2 s, with room for a loaded test machine. */
const ANSWER_BOUND_MS = 2500;
/** The contract's 5 s from the server answering again. */
const RECOVERY_BOUND_MS = 5000;
const OPERATOR = { 'x-operator-id': 'alice', 'x-operator-key': 'alice-key' };
const UNAVAILABLE = 'Database unavailable';
const SIGNAL = { source: 'grafana', alert_name: 'HighLatency', target: 'api' };

const openIncident = (app: FastifyInstance, target: string) =>
  openIncidentIn(app, 'hung-postgres', target);

describe.skipIf(!postgresBinDir())(
  'a PostgreSQL that accepts connections and never answers',
  () => {
    let server: PrivatePostgres;
    let test: TestApp;
    let frozen: FrozenPostgres | undefined;

    beforeAll(async () => {
      server = await startPrivatePostgres();
      test = await buildTestApp({
        env: {
          DATABASE_URL: server.url,
          OPERATOR_KEYS: 'alice:alice-key',
          SIGNAL_CONSUMER: 'false',
        },
      });
    }, 60_000);

    afterAll(async () => {
      // Thawed first whatever failed, or the app's close and the server's stop would wait on it.
      frozen?.thaw();
      await test?.close();
      await server?.stop();
    });

    it('lets a slow query of a server that answers run to its end', async () => {
      // Slower than the 2 s bound, on a server that answers everything else meanwhile.
      const slow = await sql<{ done: number }>`select 1 as done from pg_sleep(2.5)`.execute(
        test.app.services.store.db,
      );
      expect(slow.rows).toEqual([{ done: 1 }]);
    });

    it('answers 503 with Retry-After within 2 s, and normally within 5 s of the server answering', async () => {
      const created = await openIncident(test.app, 'svc-before');
      expect(created.statusCode).toBe(200);
      const approvalId: string = created.json().approval_id;
      expect((await test.app.inject('/api/v1/incidents')).statusCode).toBe(200);

      frozen = await freezePostgres(server);
      try {
        const requests: Array<[string, () => ReturnType<typeof openIncident>, string?]> = [
          ['a list', () => test.app.inject('/api/v1/incidents')],
          ['an alert', () => openIncident(test.app, 'svc-during')],
          [
            'a signal',
            () => postSigned(test.app, '/api/v1/webhooks/signals', SIGNAL),
            'Failed to produce signal: Database unavailable',
          ],
          [
            'a console decision',
            () =>
              test.app.inject({
                method: 'POST',
                url: `/api/v1/approvals/${approvalId}/decision`,
                payload: { decision: 'approve' },
                headers: OPERATOR,
              }),
          ],
          ['the list again', () => test.app.inject('/api/v1/incidents')],
        ];
        for (const [what, request, detail = UNAVAILABLE] of requests) {
          const { value: response, ms } = await timed(request);
          expect({ what, status: response.statusCode, body: response.json() }).toEqual({
            what,
            status: 503,
            body: {
              detail,
              code: detail === UNAVAILABLE ? 'database_unavailable' : 'signal_stream_unavailable',
            },
          });
          expect(response.headers['retry-after']).toBe('5');
          expect(ms).toBeLessThanOrEqual(ANSWER_BOUND_MS);
        }
      } finally {
        frozen.thaw();
      }

      await waitFor(
        async () =>
          (await test.app.inject('/api/v1/incidents')).statusCode === 200 ? true : undefined,
        {
          what: 'the list served once the server answers',
          timeoutMs: RECOVERY_BOUND_MS,
          intervalMs: 100,
        },
      );
      const decided = await test.app.inject({
        method: 'POST',
        url: `/api/v1/approvals/${approvalId}/decision`,
        payload: { decision: 'approve' },
        headers: OPERATOR,
      });
      expect(decided.statusCode).toBe(200);
      expect((await openIncident(test.app, 'svc-after')).statusCode).toBe(200);
    });
  },
);
