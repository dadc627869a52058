import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import { expectValidDocument, fixture, json } from './inventory-helpers.js';

const URL = '/api/v1/agents/javascript-package-inventory';

describe('GET /agents/javascript-package-inventory', () => {
  const clock = new TestClock();
  let app: TestApp['app'];
  // a root the tests change between requests: the route reads it live every time
  let liveRoot: string;
  let live: TestApp;
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      clock,
      env: { INVENTORY_ROOT: fixture('pnpm-catalog-drifted'), SIGNAL_CONSUMER: 'false' },
    }));
    liveRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-root-'));
    live = await buildTestApp({ env: { INVENTORY_ROOT: liveRoot, SIGNAL_CONSUMER: 'false' } });
  });
  afterAll(() => {
    if (liveRoot) fs.rmSync(liveRoot, { recursive: true, force: true });
  });

  it('answers 200 with the document of INVENTORY_ROOT, valid against the schema', async () => {
    const response = await app.inject(URL);
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expectValidDocument(document);
    expect(document.generated_at).toBe(new Date(clock.now()).toISOString());
    expect(document.lockfile_drift.status).toBe('action_required');
    expect(document.lockfile_drift.missing_in_lockfile).toHaveLength(1);
    expect(document.lockfile_summary.settings).toEqual({
      autoInstallPeers: true,
      excludeLinksFromLockfile: false,
    });
  });

  it('answers 404 with a detail when no workspace is there', async () => {
    const response = await live.app.inject(URL);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 'readback_not_found',
      detail: 'Readback data not found: javascript-package-inventory',
    });
  });

  it('answers 500 with a detail naming the file that cannot be parsed', async () => {
    fs.writeFileSync(path.join(liveRoot, 'package.json'), '{ "name": ');
    const response = await live.app.inject(URL);
    expect(response.statusCode).toBe(500);
    const { detail } = response.json();
    expect(detail).toMatch(
      /^Invalid readback data: javascript-package-inventory: package\.json: is not valid JSON/,
    );
    expect(detail).not.toContain(liveRoot);
  });

  it('answers 500 for an unparsable lock file', async () => {
    fs.writeFileSync(path.join(liveRoot, 'package.json'), json({ name: 'live' }));
    fs.writeFileSync(path.join(liveRoot, 'pnpm-lock.yaml'), 'importers: [unclosed\n');
    const response = await live.app.inject(URL);
    expect(response.statusCode).toBe(500);
    expect(response.json().detail).toContain('pnpm-lock.yaml: is not valid YAML');
  });

  it('follows the files as they change, with nothing written', async () => {
    fs.rmSync(path.join(liveRoot, 'pnpm-lock.yaml'));
    const before = fs.readdirSync(liveRoot).sort();
    const response = await live.app.inject(URL);
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expectValidDocument(document);
    expect(document.lockfile_summary).toMatchObject({
      lockfile_ref: 'package-lock.json',
      status: 'blocked',
    });
    expect(fs.readdirSync(liveRoot).sort()).toEqual(before);
  });

  it('documents the route and its answers for OpenAPI', async () => {
    const spec = app.swagger() as {
      paths: Record<string, { get: { responses: Record<string, unknown> } }>;
    };
    const operation = spec.paths[URL]?.get;
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(['200', '404', '500']);
    expect(JSON.stringify(operation?.responses['200'])).toContain(
      'javascript_package_inventory_v1',
    );
  });
});
