import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';
import { headerText } from './credential-guard.js';

/** CONTRACT, Under races, crashes and abuse (Cross-site requests): the methods that act. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether a request was sent by a page of another origin: its browser says so in
 * `Sec-Fetch-Site`, or (a browser without fetch metadata) its `Origin` names another host
 * and port than the `Host` it was sent to. `same-site` counts too: another port on the same
 * name, or a sibling subdomain, is another page's code. An `Origin` that is not a URL
 * (`null`, from a sandboxed frame or a `data:` page) is another origin as well.
 */
export function isCrossSite(
  fetchSite: string | undefined,
  origin: string | undefined,
  host: string | undefined,
): boolean {
  const site = fetchSite?.trim().toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return true;
  if (origin === undefined) return false;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return true;
  }
  if (host === undefined) return true;
  try {
    // Parsed under the origin's scheme, so `example.com:80` and `example.com` are one host.
    return new URL(`${from.protocol}//${host}`).host !== from.host;
  } catch {
    return true;
  }
}

/**
 * CONTRACT, Under races, crashes and abuse (Cross-site requests): a page on another origin
 * can send a body-less `fetch(url, {method: 'POST', mode: 'no-cors'})`; the browser hides
 * the answer, but the request would still act. It is refused before any route runs, with
 * or without a body. Servers that post to the service (Alertmanager, Prometheus, the chat's
 * webhook) send neither header, so they are never refused here.
 *
 * The host compared is the one the browser sent its request to: `Host`, or from a proxy of
 * TRUST_PROXY its `X-Forwarded-Host` (a forged one from anyone else is not read).
 */
export function refuseCrossSiteRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!STATE_CHANGING.has(request.method)) return done();
    const crossSite = isCrossSite(
      headerText(request, 'sec-fetch-site'),
      headerText(request, 'origin'),
      // Behind a proxy of TRUST_PROXY, the host the browser addressed is the proxy's
      // `X-Forwarded-Host`: nginx sends the upstream's name in `Host` unless told otherwise.
      // Fastify reads `X-Forwarded-Host` only from such a proxy, `Host` from anyone else.
      request.host || undefined,
    );
    done(crossSite ? errors.crossSiteRefused() : undefined);
  });
}
