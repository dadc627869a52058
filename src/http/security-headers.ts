import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet from 'helmet';

/**
 * CONTRACT, Bad input: `nosniff` and `no-referrer` everywhere, and a policy that allows
 * only the service's own origin. The API docs (`/docs`) load their scripts and styles from
 * files, so they work under it.
 */
export const SECURITY_HEADERS = {
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
 * Every answer, errors and 404s included, carries the recorded headers. They go on the
 * reply, not on the raw response: Node then writes them with the rest in one pass, where
 * headers set on the raw response are each validated and stored twice.
 */
export function addSecurityHeaders(app: FastifyInstance): void {
  const headers = recordHelmet(SECURITY_HEADERS);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
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
