import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { READBACK_CATALOG } from '../../src/features/readbacks/catalog/readback-catalog.js';
import type { ReadbackEntry } from '../../src/features/readbacks/catalog/readback-types.js';
import type { TestApp } from '../helpers/build-app.js';
import { startUpstream } from '../helpers/upstreams.js';
import {
  AGENTS,
  copyExamples,
  readbackApp,
  readbackDir,
  removeDoc,
  writeDoc,
} from './readback-helpers.js';
import {
  SPEC_COMMITTED_RAW,
  SPEC_COMMITTED_REDACTED,
  SPEC_COMPOSED,
  SPEC_LIVE,
  SPEC_POST,
} from './spec-paths.js';

const byName = new Map(READBACK_CATALOG.map((entry) => [entry.name, entry]));
const kindOf = (name: string) => byName.get(name)?.kind;

describe('the catalog against the spec lists', () => {
  it('lists 42 committed, 19 RAW, 15 live and 6 POST paths, as transcribed', () => {
    expect([
      SPEC_COMMITTED_REDACTED.length,
      SPEC_COMMITTED_RAW.length,
      SPEC_LIVE.length,
      SPEC_POST.length,
    ]).toEqual([42, 19, 15, 6]);
  });

  it.each([
    ...SPEC_COMMITTED_REDACTED.map((path) => [path, 'committed'] as const),
    ...SPEC_COMMITTED_RAW.map((path) => [path, 'raw'] as const),
    ...SPEC_LIVE.map(({ path }) => [path, 'live'] as const),
    ...SPEC_POST.map(({ path }) => [path, 'post'] as const),
  ])('%s is served as %s', (path, kind) => {
    expect(kindOf(path)).toBe(kind);
  });

  it('serves nothing the spec does not list, and each path once', () => {
    const listed = [
      ...SPEC_COMMITTED_REDACTED,
      ...SPEC_COMMITTED_RAW,
      ...SPEC_LIVE.map((l) => l.path),
      ...SPEC_POST.map((p) => p.path),
    ];
    expect(READBACK_CATALOG.map((entry) => entry.name).sort()).toEqual([...listed].sort());
  });

  it('composes exactly the two readbacks the spec says are merged', () => {
    const composed = READBACK_CATALOG.filter((e) => e.kind === 'committed' && e.sources).map(
      (e) => e.name,
    );
    expect(composed.sort()).toEqual([...SPEC_COMPOSED].sort());
  });

  it.each(SPEC_LIVE)('$path names 404 only where its row does', ({ path, has404 }) => {
    const entry = byName.get(path) as Extract<ReadbackEntry, { kind: 'live' }>;
    expect(entry.errors.includes(404)).toBe(has404);
  });

  it.each(SPEC_POST)(
    '$path takes a body exactly when its row says JSON object',
    ({ path, hasBody }) => {
      const entry = byName.get(path) as Extract<ReadbackEntry, { kind: 'post' }>;
      expect(entry.body !== undefined).toBe(hasBody);
    },
  );
});

const TOPOLOGY = {
  host: 'db-01.corp',
  addr: '10.1.2.3:5432',
  mac: '00:1a:2b:3c:4d:5e',
  public: '8.8.8.8',
};

describe('walking every committed path', () => {
  const dir = readbackDir();
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await readbackApp({ dir }));
  });
  const committed = READBACK_CATALOG.filter((e) => e.kind === 'committed' || e.kind === 'raw');

  it.each(committed.map((e) => [e.name, e.kind] as const))(
    '%s (%s): 404 absent, 200 present, 500 invalid',
    async (name, kind) => {
      const url = `${AGENTS}/${name}`;
      removeDoc(dir, name);
      const absent = await app.inject(url);
      expect(absent.statusCode).toBe(404);
      expect(absent.json()).toEqual({
        detail: `Readback data not found: ${name}`,
        code: 'readback_not_found',
      });

      // odd spacing and key order: RAW must send these bytes, not a re-serialization
      const text = `{ "topology" : ${JSON.stringify(TOPOLOGY)},\n  "name":"${name}" }\n`;
      writeDoc(dir, name, text);
      const present = await app.inject(url);
      expect(present.statusCode).toBe(200);
      expect(present.headers['content-type']).toMatch(/^application\/json/);
      if (kind === 'raw') {
        expect(present.body).toBe(text);
      } else {
        expect(present.json().topology).toEqual({
          host: '[redacted-host]',
          addr: '[redacted-ip]',
          mac: '[redacted-mac]',
          public: '8.8.8.8',
        });
      }

      for (const invalid of ['{"not json', '[1, 2, 3]', '"a string"']) {
        writeDoc(dir, name, invalid);
        const answer = await app.inject(url);
        expect(answer.statusCode).toBe(500);
        expect(answer.json()).toEqual({
          detail: `Invalid readback data: ${name}`,
          code: 'readback_invalid',
        });
      }
    },
  );

  it('a committed JSON Schema makes a document that fails it a 500', async () => {
    const name = 'agent-report-status-board';
    fs.mkdirSync(path.join(dir, 'schemas'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'schemas', `${name}.schema.json`),
      JSON.stringify({ type: 'object', required: ['board'] }),
    );
    writeDoc(dir, name, { other: 1 });
    expect((await app.inject(`${AGENTS}/${name}`)).json()).toEqual({
      code: 'readback_invalid',
      detail: `Invalid readback data: ${name}`,
    });
    writeDoc(dir, name, { board: ['ok'] });
    expect((await app.inject(`${AGENTS}/${name}`)).statusCode).toBe(200);
    fs.writeFileSync(path.join(dir, 'schemas', `${name}.schema.json`), '{"type": "nonsense-type"}');
    expect((await app.inject(`${AGENTS}/${name}`)).statusCode).toBe(500);
  });
});

describe('walking every live and POST path', () => {
  const apps = {} as Record<'empty' | 'invalid' | 'examples', TestApp['app']>;
  const computed = READBACK_CATALOG.filter((e) => e.kind === 'live' || e.kind === 'post') as Array<
    Extract<ReadbackEntry, { kind: 'live' | 'post' }>
  >;
  beforeAll(async () => {
    const upstream = await startUpstream(() => ({
      body: { ok: true, latest_tick_at: new Date().toISOString(), ingested_last_5m: 10 },
    }));
    const empty = readbackDir();
    const invalid = readbackDir();
    const examples = readbackDir();
    copyExamples(examples, upstream.url);
    apps.empty = (await readbackApp({ dir: empty })).app;
    apps.invalid = (await readbackApp({ dir: invalid })).app;
    apps.examples = (await readbackApp({ dir: examples })).app;
    for (const entry of computed) for (const input of entry.inputs) writeDoc(invalid, input, '[]');
  });
  const inject = (
    which: keyof typeof apps,
    entry: (typeof computed)[number],
    payload: unknown = {},
  ) =>
    apps[which].inject({
      method: entry.kind === 'post' ? 'POST' : 'GET',
      url: `${AGENTS}/${entry.name}`,
      ...(entry.kind === 'post' && entry.body ? { payload: payload as object } : {}),
    });
  const validReceipt = {
    receipt_id: 'rcpt-1',
    target: 'image-registry',
    action_id: 'restart-registry',
    outcome: 'succeeded',
    check_mode: true,
    started_at: '2026-11-20T01:00:00Z',
    finished_at: '2026-11-20T01:05:00Z',
    verifier: { passed: true, ref: 'readback:x' },
    evidence_refs: ['ticket:OPS-1'],
  };
  const bodyFor = (name: string) =>
    name === 'imgstore-registry-controlled-recovery-receipt'
      ? validReceipt
      : { target_id: 'vcshost-primary' };

  it.each(computed.map((e) => [e.name, e] as const))(
    '%s: absent inputs, invalid inputs, committed examples',
    async (name, entry) => {
      const absent = await inject('empty', entry, bodyFor(name));
      if ((entry.errors as readonly number[]).includes(404)) {
        expect(absent.statusCode).toBe(404);
        expect(absent.json()).toEqual({
          detail: `Readback data not found: ${name}`,
          code: 'readback_not_found',
        });
      } else {
        expect(absent.statusCode).toBe(200);
      }
      if ((entry.errors as readonly number[]).some((status) => status === 500 || status === 422)) {
        const broken = await inject('invalid', entry, bodyFor(name));
        expect(broken.statusCode).toBe(500);
        expect(broken.json()).toEqual({
          detail: `Invalid readback data: ${name}`,
          code: 'readback_invalid',
        });
      }
      const present = await inject('examples', entry, bodyFor(name));
      expect(present.statusCode).toBe(200);
      const text = present.body;
      // redacted like every non-RAW readback: the examples carry private hosts and addresses
      expect(text).not.toMatch(/127\.0\.0\.1|\.internal"|\.corp"/);
    },
  );
});
