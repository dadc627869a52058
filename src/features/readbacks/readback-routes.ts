import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HttpError } from '../../errors.js';
import { requireConsoleToken, requireReadApiAccess } from '../../http/access-guards.js';
import type { GuardContext } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { StringEnum } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import type { AlertTypeRule } from '../intake/alert-type-rules.js';
import type { Playbook } from '../repair/playbooks.js';
import { READBACK_CATALOG } from './catalog/readback-catalog.js';
import type { ReadbackContext, ReadbackEntry } from './catalog/readback-types.js';
import { composeCommitted, resolveSource } from './compose.js';
import { createProbeCache } from './probes.js';
import { applyPublicTerms, loadPublicTerms, type PublicTerms } from './public-terms.js';
import { InvalidReadbackData, readbackErrors } from './readback-errors.js';
import {
  createReadbackFiles,
  etagOf,
  type ReadbackFiles,
  type ServedBody,
} from './readback-files.js';
import { catalogStates } from './readback-states.js';
import { redactDocument } from './redaction.js';

export interface ReadbackRouteOptions {
  services: GuardContext & Pick<Services, 'store' | 'stream' | 'chat' | 'clock'>;
  playbooks: readonly Playbook[];
  alertTypeRules: readonly AlertTypeRule[];
  /** Tests swap these; the service uses the committed catalog and glossary. */
  catalog?: readonly ReadbackEntry[];
  publicTerms?: PublicTerms;
}

const AnyObject = Type.Object({}, { additionalProperties: true });

/** If-None-Match holds the ETag (weak or strong), in a list, or `*`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

function send(request: FastifyRequest, reply: FastifyReply, served: ServedBody) {
  reply.header('etag', served.etag).header('cache-control', 'no-cache');
  if (etagMatches(request.headers['if-none-match'], served.etag)) return reply.code(304).send();
  return reply.type('application/json').send(served.body);
}

function sendDocument(request: FastifyRequest, reply: FastifyReply, document: unknown) {
  const body = Buffer.from(JSON.stringify(document));
  return send(request, reply, { body, etag: etagOf(body) });
}

/** Every failure of a computation becomes the row's 404 or the fixed 500 of its readback. */
function asReadbackError(name: string, error: unknown, log: FastifyBaseLogger): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof InvalidReadbackData) {
    log.warn(
      { readback: name, source: error.readback, reason: error.reason },
      'invalid readback data',
    );
  } else {
    log.error({ err: error, readback: name }, 'readback computation failed');
  }
  return readbackErrors.invalid(name);
}

/**
 * The readback family (spec, Endpoints: the four readback lists): one route per catalog
 * entry, registered in one loop. Committed documents are served from their cached bytes;
 * everything but RAW passes through the topology redaction.
 */
export async function readbackRoutes(app: FastifyInstance, options: ReadbackRouteOptions) {
  const { services } = options;
  const catalog = options.catalog ?? READBACK_CATALOG;
  const byName = new Map(catalog.map((entry) => [entry.name, entry]));
  const readbackNames = new Set(byName.keys());
  const files: ReadbackFiles = createReadbackFiles(services.config.readbackDir);
  const publicTerms = options.publicTerms ?? loadPublicTerms();
  const settings = {
    overlayTimeoutMs: services.config.priorityOverlayTimeoutMs,
    overlayMode: services.config.priorityOverlayMode,
    probeTimeoutMs: services.config.readbackProbeTimeoutMs,
  };
  const probes = createProbeCache(() => services.clock.now());
  const context = (signal: AbortSignal): ReadbackContext => {
    const ctx: ReadbackContext = {
      services,
      files,
      playbooks: options.playbooks,
      alertTypeRules: options.alertTypeRules,
      publicTerms,
      settings,
      signal,
      probes,
      readbackNames,
      now: () => services.clock.now(),
      readback: (name, inner) => resolveSource(ctx, byName, name, inner ?? signal),
    };
    return ctx;
  };

  // The console's catalog page: every GET readback and the state of what it reads, at once.
  app.get(
    '/readbacks',
    {
      onRequest: requireReadApiAccess(services),
      schema: {
        summary: 'Every GET readback and whether what it reads is present, missing or invalid',
        tags: ['readbacks'],
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                name: Type.String(),
                kind: Type.String(),
                summary: Type.String(),
                path: Type.String(),
                state: StringEnum(['present', 'missing', 'invalid'] as const),
                detail: Type.String(),
              }),
            ),
          }),
        },
      },
    },
    async () => ({ items: catalogStates(services.config.readbackDir, catalog) }),
  );

  // CONTRACT, Access: the six POST readbacks write or validate; the console token guards them.
  const writeGuard = requireConsoleToken(services);
  for (const entry of catalog) {
    const url = `/agents/${entry.name}`;
    const schema = {
      summary: entry.summary,
      tags: ['readbacks'],
      response: { 200: AnyObject, 404: ErrorBody, 422: ErrorBody, 500: ErrorBody },
    };
    switch (entry.kind) {
      case 'committed':
      case 'raw':
        app.get(url, { schema }, async (request, reply) => {
          const outcome = files.load(entry.name);
          if (outcome.status === 'missing') throw readbackErrors.notFound(entry.name);
          if (outcome.status === 'invalid') {
            throw asReadbackError(
              entry.name,
              new InvalidReadbackData(entry.name, outcome.reason),
              request.log,
            );
          }
          const { committed } = outcome;
          if (entry.kind === 'raw') return send(request, reply, committed.rawBody());
          if (!entry.sources) return send(request, reply, committed.redacted());
          try {
            const document = await composeCommitted(
              context(new AbortController().signal),
              entry,
              committed,
            );
            return sendDocument(request, reply, document);
          } catch (error) {
            throw asReadbackError(entry.name, error, request.log);
          }
        });
        break;
      case 'live':
        app.get(url, { schema }, async (request, reply) => {
          let document: Record<string, unknown>;
          try {
            document = await entry.compute(context(new AbortController().signal));
          } catch (error) {
            throw asReadbackError(entry.name, error, request.log);
          }
          if (entry.publicTerms) document = applyPublicTerms(document, publicTerms);
          return sendDocument(request, reply, redactDocument(document));
        });
        break;
      case 'post':
        app.post(
          url,
          {
            schema: { ...schema, ...(entry.body ? { body: entry.body } : {}) },
            onRequest: writeGuard,
          },
          async (request) => {
            try {
              return redactDocument(
                await entry.handle(context(new AbortController().signal), request.body),
              );
            } catch (error) {
              throw asReadbackError(entry.name, error, request.log);
            }
          },
        );
        break;
    }
  }
}
