import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/build-app.js';
import { copyExamples, readbackDir, removeDoc } from './readback-helpers.js';

interface CatalogItem {
  name: string;
  kind: string;
  path: string;
  state: 'present' | 'missing' | 'invalid';
  detail: string;
}

/**
 * `GET /api/v1/readbacks`: the console's catalog page in one request. Each state agrees with
 * what the readback itself answers (200 present, 404 missing, 500 invalid).
 */
describe('the readback catalog with states', () => {
  it('names every GET readback, present, missing or invalid, as the readbacks answer', async () => {
    const dir = readbackDir();
    copyExamples(dir);
    fs.writeFileSync(path.join(dir, 'ai-technology-radar-readback.json'), '{ not json');
    removeDoc(dir, 'ai-agent-market-radar-readback');
    const { app } = await buildTestApp({ env: { READBACK_DIR: dir, SIGNAL_CONSUMER: 'false' } });
    const response = await app.inject('/api/v1/readbacks');
    expect(response.statusCode).toBe(200);
    const items = response.json().items as CatalogItem[];
    expect(items.length).toBeGreaterThan(60);
    expect(items.every((item) => item.path === `/api/v1/agents/${item.name}`)).toBe(true);
    const byName = new Map(items.map((item) => [item.name, item]));
    expect(byName.get('ai-technology-radar-readback')).toMatchObject({ state: 'invalid' });
    expect(byName.get('ai-agent-market-radar-readback')).toMatchObject({ state: 'missing' });
    // Committed and RAW readbacks: the state is what serving them answers.
    for (const item of items.filter((i) => i.kind === 'committed' || i.kind === 'raw')) {
      const served = await app.inject(item.path);
      const expected = { present: 200, missing: 404, invalid: 500 }[item.state];
      expect([item.name, served.statusCode]).toEqual([item.name, expected]);
    }
  });

  it('is read API: the console token when CONSOLE_TOKEN is set', async () => {
    const { app } = await buildTestApp({
      env: { CONSOLE_TOKEN: 'catalog-token', SIGNAL_CONSUMER: 'false' },
    });
    expect((await app.inject('/api/v1/readbacks')).statusCode).toBe(401);
    const allowed = await app.inject({
      url: '/api/v1/readbacks',
      headers: { authorization: 'Bearer catalog-token' },
    });
    expect(allowed.statusCode).toBe(200);
  });
});
