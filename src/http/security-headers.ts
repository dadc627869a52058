import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import helmet from 'helmet';

/**
 * helmet's options for pages. CONTRACT, Bad input: an HTML answer carries a policy that
 * allows only the service's own origin. The API docs (`/docs`) load their scripts and
 * styles from files, so they work under it.
 */
export const PAGE_HELMET_OPTIONS = {
  referrerPolicy: { policy: 'no-referrer' as const },
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'"],
    },
  },
};

/**
 * What helmet sets on a response, recorded once: its chain of a dozen middlewares per
 * response cost about 4 % of a webhook's CPU. Only a policy without a per-request part can
 * be recorded, so a directive computed per request (a nonce) is refused here. Helmet's
 * removals are left out: they undo headers an earlier handler set, and nothing has been
 * set when the headers are added.
 */
export function recordHelmet(options: Parameters<typeof helmet>[0]): Record<string, string> {
  const directives = Object.values(
    (options?.contentSecurityPolicy as { directives?: Record<string, unknown> } | undefined)
      ?.directives ?? {},
  );
  if (directives.some((values) => [values].flat().some((value) => typeof value === 'function'))) {
    throw new Error('security headers: a per-request directive cannot be recorded once');
  }
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: number | string | readonly string[]) {
      headers[name.toLowerCase()] = String(value);
      return recorder;
    },
    removeHeader() {},
  };
  let failure: unknown;
  helmet(options)(
    {} as IncomingMessage,
    recorder as unknown as ServerResponse,
    (error?: unknown) => {
      failure = error;
    },
  );
  if (failure !== undefined) throw failure;
  return headers;
}

/**
 * CONTRACT, Bad input: what every answer carries, errors and 404s included. An API answer
 * is data (JSON, the metrics' text, an event stream), not a page, so helmet's dozen page
 * headers would only lengthen every answer (Node checks each header of each answer as it
 * writes it). With these, a browser that opens an answer sniffs no other type into it,
 * loads and runs nothing in it, sends no referrer from it, and lets no other site frame or
 * embed it.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
});

/**
 * The API's headers on every answer. They go on the reply, not on the raw response: Node
 * then writes them with the rest in one pass, where headers set on the raw response are
 * each validated and stored twice.
 */
export function addApiSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(API_SECURITY_HEADERS);
    done();
  });
}

/**
 * onRequest hook for the scopes that serve pages (the console, the API docs): helmet's
 * whole set with the page policy of `PAGE_HELMET_OPTIONS`. A scope's hooks run after the
 * root's, so this replaces the API's headers: helmet sets all four of their names too.
 */
export function pageSecurityHeaders(): onRequestHookHandler {
  const headers = recordHelmet(PAGE_HELMET_OPTIONS);
  return (_request, reply, done) => {
    reply.headers(headers);
    done();
  };
}

/**
 * For a route that writes its own response (a server-sent event stream): Fastify writes no
 * head for it, so the reply's headers (the security headers among them) move to the raw
 * response before the route takes it over.
 */
export function hijackKeepingHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
}
