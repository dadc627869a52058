import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trackerFixture } from '../errtracker/fixtures.js';
import { buildTestApp } from '../helpers/build-app.js';
import { copyExamples, readbackDir } from '../readbacks/readback-helpers.js';

/**
 * CONTRACT, Bad input: "Nothing from a request is matched by a pattern that can backtrack
 * super-linearly: every endpoint answers a body of 512 KiB of adversarial text ... in well
 * under a second, and the service stays responsive meanwhile." Every POST route the app
 * registers gets bodies of about 512 KiB of near-matches of the patterns it applies, over
 * real HTTP, while the health route is polled on the same server.
 */

const BODY_BYTES = 512 * 1024;
/** The other slots of a body carry a piece this long: every field sees the text. */
const SIDE_BYTES = 8 * 1024;
const ANSWER_LIMIT_MS = 1000;
const HEALTH_LIMIT_MS = 500;
const HEALTH_PATH = '/api/v1/webhooks/errtracker/health';

/**
 * Repeated units that near-match a pattern the service applies: separators that restart a
 * scan at every position, prefixes of credentials and connection strings, address and host
 * fragments, and pieces of the diagnosis signatures' error messages.
 */
const UNITS: ReadonlyArray<readonly [string, string]> = [
  ['dotted words', 'a.'],
  ['colon words', 'a:'],
  ['hyphenated words', 'a-'],
  ['scheme characters', 'A+'],
  ['jwt headers', 'eyJ-'],
  ['jwt head runs', 'eyJJ-'],
  ['jwt segments', 'eyJaaaaaaaa.'],
  ['userinfo', '://a:'],
  ['connection strings without @', 'a://a:a'],
  ['password assignments', 'password='],
  ['empty password assignments', 'password:\t,'],
  ['key headers', '-----BEGIN '],
  ['key header words', '-----BEGIN A '],
  ['bearer', 'Bearer '],
  ['whitespace', ' \t'],
  ['line breaks', '\n '],
  ['path segments', '/a'],
  ['digits', '0'],
  ['dotted numbers', '10.0.0.'],
  ['ipv6 groups', 'fe80::'],
  ['bracketed zones', '[%'],
  ['mac pairs', 'aa:'],
  ['private host labels', 'a.local-'],
  ['word run', 'ab'],
  ['missing map keys', 'Key s'],
  ['libpq servers', 'server at "erv'],
  ['libpq hosts', 'on host "n"o'],
  ['slice bounds', 'slice bounds out of range [a'],
  ['not a function', 'a is not a '],
  ['undefined property reads', "Cannot read properties of undefined (reading '"],
  ['python key errors', "KeyError: '"],
  ['java frames', 'at com.example.Service.run(Service.java:'],
  ['shared objects', 'a.so'],
  ['quoted requirements', '"a" is required'],
  ['no space paths', '/E: '],
];

/** `unit` repeated until its JSON text is about `bytes` long. */
function repeatTo(unit: string, bytes: number): string {
  const size = Math.max(1, JSON.stringify(unit).length - 2);
  return unit.repeat(Math.max(1, Math.floor(bytes / size)));
}

type Body = Record<string, unknown>;

/** A place a route reads text from; `put` sets it in a fresh body. */
interface Slot {
  name: string;
  put(body: Body, text: string): void;
}

interface RouteCase {
  base(n: number): Body;
  slots: readonly Slot[];
  /** The route's own documented 5xx answers (an unconfigured chat gateway). */
  allowed5xx?: readonly number[];
  /** The route takes no body (it is sent anyway): left out of the generated mixtures. */
  ignoresBody?: true;
}

function at(...path: (string | number)[]): Slot {
  return {
    name: path.join('.'),
    put(body, text) {
      let here: Record<string | number, unknown> = body;
      for (let i = 0; i < path.length - 1; i++) {
        const key = path[i]!;
        here[key] ??= typeof path[i + 1] === 'number' ? [] : {};
        here = here[key] as Record<string | number, unknown>;
      }
      here[path.at(-1)!] = text;
    },
  };
}

/** The text as an object key: keys are scanned and echoed in paths. */
function asKey(...path: string[]): Slot {
  return {
    name: `${path.join('.')}.<key>`,
    put(body, text) {
      let here = body;
      for (const key of path) {
        here[key] ??= {};
        here = here[key] as Body;
      }
      here[text] = 'x';
    },
  };
}

function trackerBase(n: number): Body {
  const body = structuredClone(trackerFixture('issue-alert-triggered')) as {
    data: { event: Body; issue?: Body };
  };
  body.data.event.issue_id = `adversarial-${n}`;
  body.data.issue = {
    id: `adversarial-${n}`,
    title: 'OperationalError: connection refused',
    culprit: 'reports.queries in fetch_report_rows',
    level: 'error',
    count: '3',
    project: { slug: 'reports-worker' },
  };
  return body as unknown as Body;
}

const frame = (field: string) =>
  at('data', 'event', 'exception', 'values', 0, 'stacktrace', 'frames', 0, field);
const lastFrame = (field: string): Slot => ({
  name: `last frame.${field}`,
  put(body, text) {
    const frames = (
      body as { data: { event: { exception: { values: { stacktrace: { frames: Body[] } }[] } } } }
    ).data.event.exception.values[0]!.stacktrace.frames;
    frames.at(-1)![field] = text;
  },
});

/** Every POST route, keyed by its URL: the route fails the suite until it has one. */
const ROUTES: ReadonlyMap<string, RouteCase> = new Map<string, RouteCase>([
  [
    '/api/v1/webhooks/signals',
    {
      base: () => ({
        source: 'adversarial',
        alert_name: 'AdversarialSignal',
        severity: 'warning',
        namespace: 'adversarial',
        target: 'adversarial-7d9f8b6c5-x2x4z',
      }),
      slots: [at('message'), at('annotations', 'description'), at('labels', 'detail')],
    },
  ],
  [
    '/api/v1/webhooks/alerts',
    {
      base: () => ({
        alert_name: 'AdversarialAlert',
        severity: 'warning',
        namespace: 'adversarial',
        target_resource: 'adversarial-7d9f8b6c5-x2x4z',
      }),
      slots: [
        at('message'),
        at('annotations', 'description'),
        at('labels', 'detail'),
        {
          name: 'alertmanager annotations.summary',
          put(body, text) {
            body.alerts = [
              {
                status: 'firing',
                labels: { alertname: 'AdversarialAlert', namespace: 'adversarial', pod: 'p-0' },
                annotations: { summary: text },
              },
            ];
          },
        },
      ],
    },
  ],
  [
    '/api/v1/webhooks/alertmanager',
    {
      base: () => ({
        version: '4',
        status: 'firing',
        alerts: [
          {
            status: 'firing',
            labels: { alertname: 'AdversarialReceiver', namespace: 'adversarial', pod: 'p-0' },
            annotations: {},
          },
        ],
      }),
      slots: [
        at('alerts', 0, 'annotations', 'summary'),
        at('alerts', 0, 'labels', 'detail'),
        at('commonAnnotations', 'description'),
      ],
    },
  ],
  [
    '/api/v1/webhooks/errtracker/error',
    {
      base: trackerBase,
      slots: [
        at('data', 'issue', 'title'),
        at('data', 'issue', 'culprit'),
        at('data', 'event', 'title'),
        at('data', 'event', 'culprit'),
        at('data', 'event', 'message'),
        at('data', 'event', 'url'),
        at('data', 'issue', 'count'),
        at('data', 'event', 'exception', 'values', 0, 'type'),
        at('data', 'event', 'exception', 'values', 0, 'value'),
        at('data', 'event', 'metadata', 'value'),
        frame('filename'),
        frame('function'),
        lastFrame('filename'),
        lastFrame('function'),
        lastFrame('context_line'),
        lastFrame('lineno'),
      ],
    },
  ],
  [
    '/api/v1/agents/imgstore-registry-controlled-recovery-receipt',
    {
      base: (n) => ({
        receipt_id: `rcpt-${n}`,
        target: 'image-registry',
        action_id: 'restart-registry',
        outcome: 'succeeded',
        check_mode: true,
        started_at: '2026-11-22T01:00:00Z',
        finished_at: '2026-11-22T01:04:00Z',
        verifier: { passed: true, ref: 'readback:agent-log-post-write-verifier-dry-run' },
        evidence_refs: ['ticket:OPS-77'],
      }),
      slots: [at('notes'), at('evidence_refs', 0), at('target'), at('receipt_id')],
    },
  ],
  [
    '/api/v1/agents/vcshost-target-owner-response-intake-preflight',
    {
      base: () => ({ target_id: 'vcs-1', decision: 'approve_backup_plan', owner: 'owner-a' }),
      slots: [at('note'), at('evidence_refs', 0), at('target_id'), asKey('details')],
    },
  ],
  [
    '/api/v1/agents/vcshost-target-safe-credential-evidence-reviewer-validation/validate-redacted-refs',
    {
      base: () => ({ refs: [{ kind: 'backup_location', ref: 'vault://kv/backup/location' }] }),
      slots: [at('refs', 0, 'ref'), at('refs', 0, 'kind'), at('note'), asKey('details')],
    },
  ],
  [
    '/api/v1/agents/agent-log-controlled-writeback-dispatch',
    { base: () => ({}), slots: [at('note')], ignoresBody: true },
  ],
  [
    '/api/v1/agents/agent-log-controlled-writeback-consumer-apply',
    { base: () => ({}), slots: [at('note')], ignoresBody: true },
  ],
  [
    '/api/v1/agents/chatops-alert-monitoring-live-receipt-apply',
    { base: () => ({}), slots: [at('note')], ignoresBody: true },
  ],
  [
    '/api/v1/agents/analyze',
    {
      base: () => ({
        severity: 'P2',
        affected_services: ['adversarial'],
        alert_names: ['AdversarialAlert'],
      }),
      slots: [at('context', 'description'), at('context', 'detail'), at('alert_names', 0)],
    },
  ],
  [
    '/api/v1/chatops/webhook',
    {
      base: (n) => ({
        update_id: n,
        callback_query: {
          id: `cb-${n}`,
          from: { id: 1 },
          data: 'approve:apr-1:0123456789abcdef',
          message: { message_id: n, chat: { id: 1 }, text: 'card' },
        },
      }),
      slots: [at('callback_query', 'data'), at('callback_query', 'message', 'text')],
    },
  ],
  [
    '/api/v1/approvals/:id/decision',
    {
      // Refused by its schema (an unknown field) or for want of operator headers.
      base: () => ({ decision: 'approve' }),
      slots: [at('decision'), at('note')],
    },
  ],
  [
    '/api/v1/heartbeats/:name',
    {
      // ':name' is no heartbeat name (422); the body is read all the same.
      base: () => ({ timeout_seconds: 60 }),
      slots: [at('namespace'), at('severity')],
    },
  ],
  [
    '/api/v1/alertmanager/api/v2/alerts',
    {
      // Prometheus's postable alerts: an array, not an object.
      base: () =>
        [
          {
            labels: { alertname: 'AdversarialAlert', namespace: 'adversarial', pod: 'p-0' },
            annotations: {},
          },
        ] as unknown as Body,
      slots: [
        {
          name: 'alerts.0.annotations.summary',
          put(body, text) {
            (body as unknown as Array<{ annotations: Body }>)[0]!.annotations.summary = text;
          },
        },
        {
          name: 'alerts.0.labels.detail',
          put(body, text) {
            (body as unknown as Array<{ labels: Body }>)[0]!.labels.detail = text;
          },
        },
      ],
    },
  ],
  [
    '/api/v1/alertmanager/api/v2/silences',
    {
      base: () => ({
        matchers: [{ name: 'alertname', value: 'Adversarial.*', isRegex: true, isEqual: true }],
        startsAt: new Date().toISOString(),
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
        createdBy: 'adversarial',
        comment: 'adversarial',
      }),
      slots: [at('comment'), at('createdBy'), at('matchers', 0, 'value')],
    },
  ],
  [
    '/api/v1/incidents/:id/acknowledge',
    { base: () => ({}), slots: [at('note')], ignoresBody: true },
  ],
  ['/api/v1/incidents/:id/resolve', { base: () => ({}), slots: [at('note')], ignoresBody: true }],
  [
    '/api/v1/chatops/test-push',
    {
      base: () => ({ approval_id: 'adversarial-1' }),
      slots: [at('root_cause'), at('resource_name'), at('suggested_action')],
      // Without CHAT_BOT_TOKEN the chat API cannot be reached: "Chat API error: ..." (502).
      allowed5xx: [502],
    },
  ],
]);

/** A body of about BODY_BYTES: the text in full at `primary`, a piece of it everywhere else. */
function bodyFor(route: RouteCase, n: number, unit: string, primary: number): string {
  const body = route.base(n);
  const others = route.slots.length - 1;
  route.slots.forEach((slot, index) => {
    const bytes = index === primary ? BODY_BYTES - others * SIDE_BYTES : SIDE_BYTES;
    slot.put(body, repeatTo(unit, bytes));
  });
  return JSON.stringify(body);
}

/**
 * Polls the health route back to back. A poll's latency counts from when it was due, so a
 * server stuck in a pattern between two polls shows up as well as one stuck during a poll.
 */
class HealthWatch {
  private worst = 0;
  private running = true;
  private waiters: Array<() => void> = [];
  private readonly loop: Promise<void>;

  constructor(private readonly url: string) {
    this.loop = this.run();
  }

  private async run() {
    while (this.running) {
      const due = performance.now();
      const answer = await fetch(this.url);
      await answer.arrayBuffer();
      this.worst = Math.max(this.worst, performance.now() - due);
      for (const wake of this.waiters.splice(0)) wake();
      await sleep(5);
    }
  }

  /** The worst latency since the last call, once a poll that started after now has ended. */
  async take(): Promise<number> {
    await new Promise<void>((resolve) => this.waiters.push(resolve));
    await new Promise<void>((resolve) => this.waiters.push(resolve));
    const worst = this.worst;
    this.worst = 0;
    return worst;
  }

  async stop() {
    this.running = false;
    await this.loop;
  }
}

function postRoutesOf(app: { printRoutes(options: object): string }): string[] {
  const tree = app.printRoutes({ method: 'POST', commonPrefix: false });
  return [...tree.matchAll(/(\/\S*) \(([^)]*)\)/g)]
    .filter((m) => m[2]!.split(',').some((method) => method.trim() === 'POST'))
    .map((m) => m[1]!);
}

describe('adversarial request bodies', () => {
  let base: string;
  let health: HealthWatch;
  let postRoutes: string[];
  let sequence = 0;
  beforeAll(async () => {
    const dir = readbackDir();
    copyExamples(dir);
    // Secrets stay unset: APP_ENV=test then skips signature checks, so the bodies reach the
    // patterns instead of stopping at a 401.
    const { app } = await buildTestApp({ env: { READBACK_DIR: dir } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    health = new HealthWatch(`${base}${HEALTH_PATH}`);
    postRoutes = postRoutesOf(app);
  });
  afterAll(async () => {
    if (health) await health.stop();
  });

  async function send(url: string, route: RouteCase, unit: string, primary: number) {
    const body = bodyFor(route, ++sequence, unit, primary);
    await health.take();
    const started = performance.now();
    const answer = await fetch(`${base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await answer.arrayBuffer();
    const elapsed = performance.now() - started;
    const worstHealth = await health.take();
    return { status: answer.status, elapsed, worstHealth, bytes: body.length };
  }

  function expectHandled(route: RouteCase, result: Awaited<ReturnType<typeof send>>) {
    expect(result.bytes).toBeGreaterThan(BODY_BYTES * 0.9);
    if (result.status >= 500) expect(route.allowed5xx ?? []).toContain(result.status);
    expect(result.elapsed).toBeLessThan(ANSWER_LIMIT_MS);
    expect(result.worstHealth).toBeLessThan(HEALTH_LIMIT_MS);
  }

  it('has an adversarial body for every POST route the app registers', () => {
    expect(postRoutes.length).toBeGreaterThan(0);
    expect(postRoutes.filter((url) => !ROUTES.has(url))).toEqual([]);
    expect([...ROUTES.keys()].filter((url) => !postRoutes.includes(url))).toEqual([]);
  });

  // The cases come from ROUTES, known while collecting; the test above holds ROUTES to
  // the routes the app registers.
  for (const [url, route] of ROUTES) {
    // Each unit fills the next slot in turn; the others carry a piece of it.
    const cases = UNITS.map(([name, unit], index) => {
      const primary = index % route.slots.length;
      return [`${name} in ${route.slots[primary]!.name}`, unit, primary] as const;
    });
    it.each(cases)(`${url}: %s`, async (_name, unit, primary) => {
      expectHandled(route, await send(url, route, unit, primary));
    });
  }

  it('answers generated mixtures of near-matches on the pattern-applying routes', async () => {
    const patternRoutes = postRoutes.filter(
      (url) => ROUTES.has(url) && !ROUTES.get(url)!.ignoresBody,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...patternRoutes),
        fc.array(fc.constantFrom(...UNITS.map(([, unit]) => unit)), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        async (url, parts, slot) => {
          const route = ROUTES.get(url)!;
          expectHandled(route, await send(url, route, parts.join(''), slot % route.slots.length));
        },
      ),
      // No shrinking: every run is a 512 KiB request, and the first failure says enough.
      { numRuns: 20, endOnFailure: true },
    );
  });

  it('stays responsive while the background work for those bodies runs', async () => {
    // Tracker issues and new incidents are analysed by jobs claimed every 250 ms: the last
    // bodies' jobs run after their answers, so the health route is watched a while longer.
    const until = performance.now() + 1_500;
    let worst = 0;
    while (performance.now() < until) worst = Math.max(worst, await health.take());
    expect(worst).toBeLessThan(HEALTH_LIMIT_MS);
  });
});
