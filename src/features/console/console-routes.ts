import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors } from '../../errors.js';
import { pageSecurityHeaders } from '../../http/security-headers.js';

export interface ConsoleRoutesOptions {
  /** The folder `npm run build:console` writes: `dist-console/` at the package root. */
  root: string;
}

/**
 * `dist-console/` of this package, found from this module whether it runs from `src/` (tsx)
 * or from `dist/src/` (the build): the nearest folder above it holding a package.json.
 */
export function consoleRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let folder = from;
  while (!fs.existsSync(path.join(folder, 'package.json'))) {
    const parent = path.dirname(folder);
    if (parent === folder) return path.resolve('dist-console');
    folder = parent;
  }
  return path.join(folder, 'dist-console');
}

/**
 * CONTRACT, Operator console: the console's page and bundled assets at
 * `/console/`, and `/` sends the browser there. The page holds no data, so it loads without
 * the console token; its data comes from the read API, which asks for it.
 */
export async function consoleRoutes(app: FastifyInstance, { root }: ConsoleRoutesOptions) {
  // The page and its assets are a page, not API answers: helmet's whole set, not the API's.
  app.addHook('onRequest', pageSecurityHeaders());
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/console/', 302),
  );

  if (!fs.existsSync(path.join(root, 'index.html'))) {
    const notBuilt = async (_request: unknown, reply: FastifyReply) =>
      reply.code(503).send(errors.consoleNotBuilt().body);
    app.get('/console', { schema: { hide: true } }, notBuilt);
    app.get('/console/', { schema: { hide: true } }, notBuilt);
    app.get('/console/*', { schema: { hide: true } }, notBuilt);
    return;
  }

  app.get('/console', { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/console/', 301),
  );
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    index: ['index.html'],
    wildcard: true,
    decorateReply: false,
    cacheControl: false,
    // Hashed asset names change with their content: cache them for good; the page never.
    setHeaders(res, filePath) {
      res.setHeader(
        'cache-control',
        filePath.includes(`${path.sep}assets${path.sep}`)
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      );
    },
  });
}
