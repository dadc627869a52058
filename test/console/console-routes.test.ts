import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { consoleRoot, consoleRoutes } from '../../src/features/console/console-routes.js';
import { PAGE_HELMET_OPTIONS, recordHelmet } from '../../src/http/security-headers.js';
import { tempDir } from '../helpers/backends.js';

async function appServing(root: string) {
  const app = Fastify();
  await app.register(consoleRoutes, { root });
  await app.ready();
  return app;
}

/** A console build of one page and one hashed asset, `assets/index-abc123.js`. */
function builtConsole(): string {
  const root = tempDir('console-built-');
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>console</title>');
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'export {};');
  return root;
}

describe('console routes', () => {
  it('sends / to /console/', async () => {
    const app = await appServing(tempDir('console-empty-'));
    const answer = await app.inject('/');
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe('/console/');
  });

  it('answers 503 with how to build it when the console is not built', async () => {
    const app = await appServing(tempDir('console-empty-'));
    for (const url of ['/console', '/console/', '/console/assets/app.js']) {
      const answer = await app.inject(url);
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toEqual({
        code: 'console_not_built',
        detail: 'The console is not built: run npm run build:console',
      });
    }
  });

  it('serves index.html at /console/ and hashed assets for good', async () => {
    const app = await appServing(builtConsole());
    const page = await app.inject('/console/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>console</title>');
    expect(page.headers['cache-control']).toBe('no-cache');
    const asset = await app.inject('/console/assets/index-abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await app.inject('/console')).statusCode).toBe(301);
  });

  it('gives the page and its assets the page headers, with a policy of the own origin', async () => {
    const app = await appServing(builtConsole());
    const expected = recordHelmet(PAGE_HELMET_OPTIONS);
    for (const url of ['/console/', '/console/assets/index-abc123.js']) {
      const answer = await app.inject(url);
      for (const [name, value] of Object.entries(expected)) {
        expect(answer.headers[name], `${url} ${name}`).toBe(value);
      }
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
    }
  });

  it('finds dist-console/ at the package root', () => {
    expect(consoleRoot()).toBe(path.resolve('dist-console'));
  });
});
