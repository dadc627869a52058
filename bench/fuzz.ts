/**
 * `npm run fuzz`: every POST route the app registers gets fast-check values generated from
 * its OpenAPI request-body schema (sometimes mutated), raw bytes (invalid UTF-8, deep
 * nesting, duplicate keys, truncated JSON, huge and over-limit bodies, empty bodies) and
 * wrong content types, through `app.inject` on an embedded app (SQLite in a temp DATA_DIR).
 * A failure is a 5xx the spec does not name, an error body without a string `detail` or a
 * catalog `code` answered with its status, a rejected inject, an uncaught exception or
 * rejection, RSS growing past the bound, or a list endpoint (or the detail of its first
 * item) not answering 200 JSON afterwards.
 * Environment: FUZZ_INPUTS (100000), FUZZ_SEED (random). Not a test; the CI runs a short
 * one (test/security/fuzz-short.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ERROR_STATUS, type ErrorCode } from '../src/error-codes.js';
import { exitWith } from './lib/exit-with.js';

type Schema = Record<string, unknown>;
type OpenApiDoc = {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
  components?: { schemas?: Record<string, Schema> };
};

export interface FuzzInput {
  route: string;
  kind: string;
  contentType: string | undefined;
  body: string | Buffer;
}

export interface FuzzFailure {
  reason: string;
  input?: string;
  seed: number;
  index?: number;
}

export interface RouteStats {
  inputs: number;
  statuses: Map<number, number>;
}

export interface FuzzReport {
  seed: number;
  inputs: number;
  seconds: number;
  routes: Map<string, RouteStats>;
  rss: { start: number; peak: number; end: number };
  failures: FuzzFailure[];
}

export interface FuzzOptions {
  inputs: number;
  seed: number;
  /** RSS may grow this much above its level after the warm-up. */
  rssBoundBytes?: number;
  bodyLimitBytes?: number;
  /** Called after every batch of 1,000 inputs. */
  onProgress?: (done: number, rssBytes: number) => void;
}

const API = '/api/v1';
const BATCH = 1000;
const MIB = 1024 * 1024;
const DEFAULT_RSS_BOUND = 512 * MIB;
/** Stop collecting after this many: one bug usually repeats thousands of times. */
const MAX_FAILURES = 20;

/**
 * The spec's own 5xx, per route (CONTRACT, Errors and Readbacks). Anything else >= 500 fails.
 * The six POST readbacks answer E-SNAP 500 when their committed data is invalid; the test
 * push 502s when the chat API fails or no chat is configured; signals 503 on a full backlog
 * (and 500 when the stream cannot take it, which the embedded stream never does).
 */
const ALLOWED_5XX: ReadonlyArray<{ route: RegExp; status: number; detail: RegExp }> = [
  { route: /\/webhooks\/signals$/, status: 503, detail: /^Failed to produce signal: backlog full/ },
  { route: /\/webhooks\/signals$/, status: 500, detail: /^Failed to produce signal: / },
  {
    route: /\/agents\/(?!analyze$)[a-z-]+(\/[a-z-]+)?$/,
    status: 500,
    detail: /^Invalid readback data: /,
  },
  { route: /\/chatops\/test-push$/, status: 502, detail: /./ },
  {
    route: /\/webhooks\/errtracker\/error$/,
    status: 500,
    detail: /^errtracker upstream canary was not recorded$/,
  },
];

const LIST_ENDPOINTS = [
  '/incidents',
  '/approvals',
  '/signals',
  '/operation-log',
  '/operation-log/verify',
  '/external-alert-events',
];

const CONTENT_TYPES = [
  'a/b/c;;;',
  'application/json, text/plain',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  '',
  undefined,
];

/**
 * Realistic bodies for the routes whose schema says nothing (they parse the body
 * themselves): the tracker's published examples and chat callback updates. Perturbing them
 * reaches past "ignored" into the handlers.
 */
function examplesFor(route: string): unknown[] {
  if (route.endsWith('/webhooks/errtracker/error')) {
    const dir = path.join(import.meta.dirname, '../test/fixtures/errtracker');
    return fs
      .readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as unknown);
  }
  if (route.endsWith('/chatops/webhook')) {
    return ['approve', 'reject', 'details', 'analyze', 'x'].map((verb, n) => ({
      update_id: n,
      callback_query: {
        id: `cb-${n}`,
        data: `${verb}:00000000-0000-4000-8000-000000000000:nonce`,
        from: { id: 1000 + n },
        message: { message_id: n, chat: { id: -1 } },
      },
    }));
  }
  return [];
}

/** The example with some leaves, keys or sub-trees replaced. */
function perturb(example: unknown, depth = 0): fc.Arbitrary<unknown> {
  const keep = (inner: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 6, arbitrary: inner }, { weight: 1, arbitrary: wrongValue });
  if (depth > 8 || example === null || typeof example !== 'object') {
    return keep(fc.constant(example));
  }
  if (Array.isArray(example)) {
    return keep(fc.tuple(...example.slice(0, 8).map((item) => perturb(item, depth + 1))));
  }
  const entries = Object.entries(example);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, value] of entries) record[key] = perturb(value, depth + 1);
  return keep(fc.record(record));
}

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

// ---------------------------------------------------------------- schema → arbitrary

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  date: fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  uri: fc.webUrl(),
  email: fc.emailAddress(),
  uuid: fc.uuid(),
};

function resolve(schema: Schema, doc: OpenApiDoc): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.split('/').pop() ?? '';
  return doc.components?.schemas?.[name] ?? {};
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format) return format;
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((s) => s.length >= minLength && s.length <= maxLength);
    } catch {
      // a pattern JavaScript cannot compile: plain strings below
    }
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, Math.max(minLength, 64)) });
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (integer) return fc.integer({ min: min ?? -(2 ** 31), max: max ?? 2 ** 31 });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** A value of the JSON-schema subset the routes use (OpenAPI 3.0 flavoured: `nullable`). */
export function arbitraryOf(schema: Schema, doc: OpenApiDoc, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, doc);
  const nullable = s.nullable === true;
  const base = baseArbitrary(s, doc, depth);
  return nullable ? fc.oneof(base, fc.constant(null)) : base;
}

function baseArbitrary(s: Schema, doc: OpenApiDoc, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  if ('const' in s) return fc.constant(s.const);
  for (const union of ['anyOf', 'oneOf'] as const) {
    const options = s[union];
    if (Array.isArray(options) && options.length > 0)
      return fc.oneof(...options.map((o: Schema) => arbitraryOf(o, doc, depth + 1)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    return arbitraryOf(Object.assign({}, ...(s.allOf as Schema[])), doc, depth + 1);
  }
  const type = s.type;
  if (Array.isArray(type)) {
    return fc.oneof(...type.map((t: string) => arbitraryOf({ ...s, type: t }, doc, depth)));
  }
  switch (type) {
    case 'string':
      return stringArbitrary(s);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (s.items as Schema | undefined) ?? {};
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxLength = typeof s.maxItems === 'number' ? Math.min(s.maxItems, 8) : 5;
      return fc.array(arbitraryOf(items, doc, depth + 1), {
        minLength,
        maxLength: Math.max(minLength, maxLength),
      });
    }
    case 'object':
      return objectArbitrary(s, doc, depth);
    default:
      if (s.properties) return objectArbitrary(s, doc, depth);
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function objectArbitrary(s: Schema, doc: OpenApiDoc, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties as Record<string, Schema> | undefined) ?? {};
  const required = Array.isArray(s.required) ? (s.required as string[]) : [];
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, value] of Object.entries(properties))
    record[key] = arbitraryOf(value, doc, depth + 1);
  const known = fc.record(record, {
    requiredKeys: required.filter((key) => Object.hasOwn(properties, key)),
  });
  if (s.additionalProperties === false || Object.keys(properties).length > 0) return known;
  return fc
    .tuple(known, fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })))
    .map(([a, b]) => ({ ...b, ...a }));
}

// ---------------------------------------------------------------- mutations and raw bytes

const wrongValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constant({}),
  fc.string({ minLength: 1024, maxLength: 2048 }),
);

/** Mutates a generated body: drop a key, a wrong type, extra or hostile keys, long ids. */
function mutate(value: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(value) ?? 'null';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fc.oneof(
      fc.constant(text),
      wrongValue.map((v) => JSON.stringify(v)),
    );
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  const withKey = (key: string, v: unknown) => {
    const rest = text.slice(1);
    return `{${JSON.stringify(key)}:${JSON.stringify(v)}${rest === '}' ? '' : ','}${rest}`;
  };
  const options: fc.Arbitrary<string>[] = [
    fc
      .tuple(fc.constantFrom(...HOSTILE_KEYS), fc.jsonValue({ maxDepth: 2 }))
      .map(([k, v]) => withKey(k, v)),
    fc
      .tuple(fc.constantFrom(...HOSTILE_KEYS), fc.constant({ polluted: true, isAdmin: true }))
      .map(([k, v]) => withKey(k, v)),
    fc
      .tuple(fc.string({ minLength: 1024, maxLength: 1500 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([k, v]) => withKey(k, v)),
    fc
      .tuple(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }))
      .map(([k, v]) => withKey(k, v)),
  ];
  if (keys.length > 0) {
    const key = fc.constantFrom(...keys);
    options.push(
      key.map((k) => {
        const copy = { ...object };
        delete copy[k];
        return JSON.stringify(copy);
      }),
      fc.tuple(key, wrongValue).map(([k, v]) => JSON.stringify({ ...object, [k]: v })),
      fc
        .tuple(key, fc.nat({ max: 4096 }))
        .map(([k, n]) => JSON.stringify({ ...object, [k]: `${'x'.repeat(1024 + n)}` })),
      // duplicate keys: the later one wins in JSON.parse
      fc.tuple(key, wrongValue).map(([k, v]) => withKey(k, v)),
      fc
        .tuple(key, wrongValue)
        .map(([k, v]) => `${text.slice(0, -1)},${JSON.stringify(k)}:${JSON.stringify(v)}}`),
    );
  }
  return fc.oneof(...options);
}

const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
];

function deepBody(depth: number, shape: number): string {
  switch (shape) {
    case 0:
      return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    case 1:
      return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    case 2:
      return '['.repeat(depth);
    default:
      return `{"x":${'[{"a":'.repeat(depth)}0${'}]'.repeat(depth)}}`;
  }
}

function rawBodies(sample: fc.Arbitrary<string>, bodyLimit: number): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    // invalid UTF-8 inside a string value, a key, or alone
    fc.tuple(sample, fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([text, bytes, at]) => {
      const quote = text.indexOf('"');
      const cut = quote >= 0 ? quote + 1 : at % (text.length + 1);
      return Buffer.concat([
        Buffer.from(text.slice(0, cut)),
        Buffer.from(bytes),
        Buffer.from(text.slice(cut)),
      ]);
    }),
    fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
    // nesting from just under the limit to 10,000 deep
    fc
      .tuple(fc.integer({ min: 60, max: 10_000 }), fc.nat({ max: 3 }))
      .map(([d, s]) => deepBody(d, s)),
    fc.tuple(fc.integer({ min: 60, max: 70 }), fc.nat({ max: 3 })).map(([d, s]) => deepBody(d, s)),
    // truncated JSON
    fc.tuple(sample, fc.nat()).map(([text, n]) => text.slice(0, n % Math.max(1, text.length))),
    // huge strings up to ~1 MiB, and bodies just over the limit
    fc
      .tuple(sample, fc.integer({ min: 1024, max: MIB - 64 }))
      .map(([text, n]) =>
        text.startsWith('{') && text.length > 2
          ? `{"huge":"${'a'.repeat(n)}",${text.slice(1)}`
          : JSON.stringify('a'.repeat(n)),
      ),
    fc.integer({ min: 1, max: 64 }).map((n) => `{"a":"${'b'.repeat(bodyLimit - 8 + n)}"}`),
    fc.constantFrom('', ' ', '\n', 'null', '[]', '{}', '""', '0', 'true', '\uFEFF{}', '{"a":1}x'),
    fc.string({ maxLength: 64 }),
  );
}

export function inputArbitrary(
  route: string,
  schema: Schema | undefined,
  doc: OpenApiDoc,
  bodyLimit: number,
): fc.Arbitrary<FuzzInput> {
  const examples = examplesFor(route);
  const values = schema
    ? arbitraryOf(schema, doc)
    : examples.length > 0
      ? fc.oneof(
          { weight: 4, arbitrary: fc.oneof(...examples.map((e) => perturb(e))) },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
        )
      : fc.jsonValue({ maxDepth: 3 });
  const valid = values.map((v) => JSON.stringify(v) ?? 'null');
  const jsonType: fc.Arbitrary<string | undefined> = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
  );
  const mutated = values.chain(mutate);
  const make = (kind: string, body: fc.Arbitrary<string | Buffer>, ct = jsonType) =>
    fc
      .tuple(body, ct)
      .map(([b, contentType]): FuzzInput => ({ route, kind, contentType, body: b }));
  return fc.oneof(
    { weight: 35, arbitrary: make('schema', valid) },
    { weight: 30, arbitrary: make('mutated', mutated) },
    { weight: 25, arbitrary: make('raw', rawBodies(valid, bodyLimit)) },
    {
      weight: 10,
      arbitrary: make('content-type', fc.oneof(valid, mutated), fc.constantFrom(...CONTENT_TYPES)),
    },
  );
}

// ---------------------------------------------------------------- running

function describeInput(input: FuzzInput): string {
  const body = Buffer.isBuffer(input.body)
    ? `bytes(${input.body.length}):${input.body.subarray(0, 200).toString('hex')}`
    : `text(${input.body.length}):${input.body}`;
  const line = `POST ${input.route} [${input.kind}] content-type=${JSON.stringify(input.contentType)} ${body}`;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** What is wrong with an answer, or undefined. */
export function checkAnswer(route: string, status: number, payload: string): string | undefined {
  if (status < 400) return undefined;
  const parsed = parseJson(payload);
  const { detail, code } =
    parsed.ok && parsed.value !== null && typeof parsed.value === 'object'
      ? (parsed.value as { detail?: unknown; code?: unknown })
      : {};
  if (typeof detail !== 'string')
    return `${status} without a JSON string detail: ${payload.slice(0, 200)}`;
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_STATUS, code))
    return `${status} without a catalog code: ${payload.slice(0, 200)}`;
  if (code !== 'request_refused' && ERROR_STATUS[code as ErrorCode] !== status)
    return `${status} with code ${code}, which the catalog answers ${ERROR_STATUS[code as ErrorCode]}`;
  if (status < 500) return undefined;
  const allowed = ALLOWED_5XX.some(
    (rule) => rule.route.test(route) && rule.status === status && rule.detail.test(detail),
  );
  return allowed ? undefined : `unexpected ${status}: ${detail.slice(0, 200)}`;
}

async function postRoutes(app: FastifyInstance): Promise<{ doc: OpenApiDoc; routes: string[] }> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  const doc = response.json() as OpenApiDoc;
  const routes = Object.entries(doc.paths)
    .filter(([, ops]) => ops.post)
    .map(([url]) => url)
    .sort();
  return { doc, routes };
}

function bodySchemaOf(doc: OpenApiDoc, route: string): Schema | undefined {
  const content = doc.paths[route]?.post?.requestBody?.content;
  const schema = (content?.['application/json'] as { schema?: Schema } | undefined)?.schema;
  return schema && Object.keys(schema).length > 0 ? schema : undefined;
}

/** A list's items: the array itself, or the first array-valued property. */
function itemsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) if (Array.isArray(v)) return v;
  }
  return [];
}

async function checkLists(
  app: FastifyInstance,
  doc: OpenApiDoc,
  fail: (reason: string) => void,
): Promise<string[]> {
  const checked: string[] = [];
  for (const list of LIST_ENDPOINTS) {
    const url = `${API}${list}`;
    const response = await app.inject({ method: 'GET', url });
    const parsed = parseJson(response.payload);
    if (response.statusCode !== 200 || !parsed.ok) {
      fail(`GET ${url} answered ${response.statusCode}: ${response.payload.slice(0, 200)}`);
      continue;
    }
    const items = itemsOf(parsed.value);
    checked.push(`GET ${url} 200 (${items.length} items)`);
    const detailPath = Object.keys(doc.paths).find(
      (p) => doc.paths[p]?.get && new RegExp(`^${url}/\\{[^}/]+\\}$`).test(p),
    );
    const first = items[0] as Record<string, unknown> | undefined;
    if (!detailPath || !first) continue;
    const param = /\{([^}]+)\}$/.exec(detailPath)![1]!;
    const id = [param, 'id', `${list.slice(1, -1)}_id`]
      .map((k) => first[k])
      .find((v) => typeof v === 'string' || typeof v === 'number');
    if (id === undefined) continue;
    const detailUrl = detailPath.replace(`{${param}}`, encodeURIComponent(String(id)));
    const detail = await app.inject({ method: 'GET', url: detailUrl });
    if (detail.statusCode !== 200 || !parseJson(detail.payload).ok)
      fail(`GET ${detailUrl} answered ${detail.statusCode}: ${detail.payload.slice(0, 200)}`);
    else checked.push(`GET ${detailUrl} 200`);
  }
  return checked;
}

/** Builds an embedded app in a temp DATA_DIR and fuzzes every POST route. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport & { checked: string[] }> {
  const { seed } = options;
  const rssBound = options.rssBoundBytes ?? DEFAULT_RSS_BOUND;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-'));
  const readbackDir = path.join(dataDir, 'readbacks');
  fs.mkdirSync(readbackDir);
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    READBACK_DIR: readbackDir,
    APP_ENV: 'test',
    LOG_LEVEL: 'silent',
    SIGNAL_CONSUMER: 'true',
  };
  if (options.bodyLimitBytes) env.BODY_LIMIT_BYTES = String(options.bodyLimitBytes);
  const config = loadConfig(env);
  const failures: FuzzFailure[] = [];
  const fail = (reason: string, input?: FuzzInput, index?: number) => {
    if (failures.length < MAX_FAILURES)
      failures.push({ reason, input: input && describeInput(input), seed, index });
  };
  const onUncaught = (error: unknown) =>
    fail(`uncaught: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  const app = await buildApp(config);
  const routesStats = new Map<string, RouteStats>();
  const rss = { start: process.memoryUsage().rss, peak: 0, end: 0 };
  rss.peak = rss.start;
  const started = performance.now();
  let done = 0;
  let checked: string[] = [];
  try {
    await app.ready();
    const { doc, routes } = await postRoutes(app);
    const arbitrary = fc.oneof(
      ...routes.map((route) =>
        inputArbitrary(route, bodySchemaOf(doc, route), doc, config.bodyLimitBytes),
      ),
    );
    for (const route of routes) routesStats.set(route, { inputs: 0, statuses: new Map() });
    const warmup = Math.min(5000, Math.floor(options.inputs / 10));
    let baseline = rss.start;
    for (let batch = 0; done < options.inputs && failures.length < MAX_FAILURES; batch++) {
      const count = Math.min(BATCH, options.inputs - done);
      const inputs = fc.sample(arbitrary, { seed: seed + batch, numRuns: count });
      for (const input of inputs) {
        const index = done++;
        const stats = routesStats.get(input.route)!;
        stats.inputs++;
        try {
          const headers: Record<string, string> = {};
          if (input.contentType !== undefined) headers['content-type'] = input.contentType;
          const response = await app.inject({
            method: 'POST',
            url: input.route,
            payload: input.body,
            headers,
          });
          const status = response.statusCode;
          stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
          const problem = checkAnswer(input.route, status, response.payload);
          if (problem) fail(problem, input, index);
        } catch (error) {
          fail(`inject rejected: ${(error as Error).stack ?? String(error)}`, input, index);
        }
      }
      const now = process.memoryUsage().rss;
      rss.peak = Math.max(rss.peak, now);
      options.onProgress?.(done, now);
      if (done <= warmup) baseline = now;
      else if (now - baseline > rssBound)
        fail(`RSS ${mb(now)} grew more than ${mb(rssBound)} above ${mb(baseline)} after warm-up`);
    }
    // let background work (signal consumer, analyses) settle before reading back
    await new Promise((r) => setTimeout(r, 200));
    checked = await checkLists(app, doc, (reason) => fail(reason));
  } finally {
    await app.close();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  rss.end = process.memoryUsage().rss;
  rss.peak = Math.max(rss.peak, rss.end);
  const seconds = (performance.now() - started) / 1000;
  return { seed, inputs: done, seconds, routes: routesStats, rss, failures, checked };
}

function mb(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

export function formatReport(report: FuzzReport & { checked: string[] }): string {
  const lines: string[] = [];
  for (const [route, stats] of report.routes) {
    const histogram = [...stats.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}:${n}`)
      .join(' ');
    lines.push(`${route.padEnd(92)} ${String(stats.inputs).padStart(7)}  ${histogram}`);
  }
  lines.push(...report.checked.map((line) => `after: ${line}`));
  lines.push(
    `inputs ${report.inputs} in ${report.seconds.toFixed(1)} s (${Math.round(report.inputs / report.seconds)} inputs/s), seed ${report.seed}`,
    `RSS start ${mb(report.rss.start)}, peak ${mb(report.rss.peak)}, end ${mb(report.rss.end)}`,
  );
  for (const failure of report.failures) {
    lines.push(
      `FAIL ${failure.reason}${failure.input ? `\n  input #${failure.index}: ${failure.input}` : ''}\n  reproduce: FUZZ_SEED=${failure.seed} FUZZ_INPUTS=${report.inputs} npm run fuzz`,
    );
  }
  lines.push(report.failures.length === 0 ? 'OK' : `${report.failures.length} failure(s)`);
  return lines.join('\n');
}

function envInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

async function main(): Promise<number> {
  const inputs = envInteger('FUZZ_INPUTS', 100_000);
  const seed = envInteger('FUZZ_SEED', Math.floor(Math.random() * 2 ** 31));
  console.log(`fuzzing ${inputs} inputs, FUZZ_SEED=${seed}`);
  const report = await runFuzz({
    inputs,
    seed,
    onProgress: (done, rss) => {
      if (done % 10_000 === 0) console.log(`  ${done} inputs, RSS ${mb(rss)}`);
    },
  });
  console.log(formatReport(report));
  return report.failures.length === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  exitWith('fuzz', main);
}
