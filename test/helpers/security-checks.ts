import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';

/** One route the console token guards, with a body it would otherwise accept. */
export interface GuardedRoute {
  method: 'GET' | 'POST';
  url: string;
  payload?: unknown;
}

let calls = 0;
/**
 * Each call comes from an address of its own: these checks send many wrong credentials, and
 * ten from one address would be throttled (CONTRACT, Hostile clients; tested on its own).
 */
function nextClientAddress(): string {
  calls++;
  return `10.${(calls >> 16) & 255}.${(calls >> 8) & 255}.${calls & 255}`;
}

function call(
  app: FastifyInstance,
  route: GuardedRoute,
  headers: Record<string, string>,
  url = route.url,
) {
  return app.inject({
    method: route.method,
    url,
    headers,
    remoteAddress: nextClientAddress(),
    ...(route.payload !== undefined ? { payload: route.payload as object } : {}),
  });
}

/**
 * The one set of access checks every route behind CONSOLE_TOKEN passes (CONTRACT, Access):
 * no token, a wrong token, another scheme and a token in the query string are all 401
 * `Unauthorized`; the right token passes whatever the scheme name's case.
 */
export function describeConsoleTokenGuard(
  name: string,
  token: string,
  routes: GuardedRoute[],
  build: () => Promise<FastifyInstance>,
) {
  describe(`${name}: console token (CONTRACT, Access)`, () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await build();
    });
    const refusals: Array<[string, (route: GuardedRoute) => ReturnType<typeof call>]> = [
      ['no Authorization header', (route) => call(app, route, {})],
      ['a wrong token', (route) => call(app, route, { authorization: `Bearer ${token}x` })],
      ['an empty bearer', (route) => call(app, route, { authorization: 'Bearer ' })],
      [
        'the Basic scheme with the token',
        (route) =>
          call(app, route, {
            authorization: `Basic ${Buffer.from(`console:${token}`).toString('base64')}`,
          }),
      ],
      ['the bare token without a scheme', (route) => call(app, route, { authorization: token })],
      [
        'the token in the query string',
        (route) => {
          const joiner = route.url.includes('?') ? '&' : '?';
          const query = `token=${token}&access_token=${token}&authorization=Bearer%20${token}`;
          return call(app, route, {}, `${route.url}${joiner}${query}`);
        },
      ],
    ];
    for (const route of routes) {
      it.each(refusals)(`${route.method} ${route.url} refuses %s`, async (_what, send) => {
        const response = await send(route);
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({ detail: 'Unauthorized', code: 'unauthorized' });
        expect(response.headers['www-authenticate']).toBe('Bearer');
      });
      it.each(['Bearer', 'bearer', 'BEARER'])(
        `${route.method} ${route.url} takes the token with the scheme spelled %s`,
        async (scheme) => {
          const response = await call(app, route, { authorization: `${scheme} ${token}` });
          expect(response.statusCode).not.toBe(401);
          expect(response.statusCode).not.toBe(403);
        },
      );
    }
  });
}
