import { describe, expect, it } from 'vitest';
import { buildTestApp, postSigned } from '../helpers/build-app.js';

describe('security headers (CONTRACT, Bad input)', async () => {
  const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });

  it.each([
    ['a JSON answer', () => app.inject('/api/v1/webhooks/errtracker/health')],
    ['a 404', () => app.inject('/api/v1/nowhere')],
    ['a 422', () => postSigned(app, '/api/v1/webhooks/signals', {})],
    ['the OpenAPI document', () => app.inject('/openapi.json')],
    ['the metrics', () => app.inject('/metrics')],
    ['the API docs page', () => app.inject('/docs/')],
  ])('%s carries nosniff and no-referrer', async (_what, send) => {
    const response = await send();
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('an HTML page carries a policy that allows only the own origin', async () => {
    const page = await app.inject('/docs/');
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const policy = String(page.headers['content-security-policy']);
    const directives = new Map(
      policy.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    for (const values of directives.values()) {
      for (const value of values) expect(value).toMatch(/^('self'|'none'|data:)$/);
    }
  });

  it('the API docs still load: every script and stylesheet is same-origin and served', async () => {
    const page = await app.inject('/docs/');
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThan(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const url = new URL(asset, 'http://service/docs/').pathname;
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(200);
    }
  });
});
