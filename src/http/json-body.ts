import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BODY_PROBLEMS, errors, MAX_JSON_DEPTH } from '../errors.js';

export type JsonBody = { ok: true; value: unknown } | { ok: false; problem: string };

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the text opens more than `limit` arrays and objects at once. One pass over the
 * bytes, before JSON.parse: a deep document never reaches a recursive serializer or walker
 * (they overflow the stack at a few thousand levels). Bytes inside strings do not count,
 * and multi-byte UTF-8 sequences never contain these ASCII bytes.
 */
export function nestsDeeperThan(raw: Buffer, limit: number): boolean {
  if (!opensMoreThan(raw, limit)) return false;
  let depth = 0;
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index];
    if (byte === QUOTE) {
      // Most of a document's bytes are inside strings: jump to the closing quote natively.
      index = closingQuote(raw, index + 1);
      if (index === -1) return false; // unterminated: JSON.parse refuses it
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether the text has more than `limit` opening brackets, in strings or not. Fewer cannot
 * nest deeper, and counting them natively costs a tenth of the scan that skips strings (a
 * 5 KB tracker issue has about 50).
 */
function opensMoreThan(raw: Buffer, limit: number): boolean {
  let opens = 0;
  for (const bracket of [OPEN_BRACE, OPEN_BRACKET]) {
    for (let at = raw.indexOf(bracket); at !== -1; at = raw.indexOf(bracket, at + 1)) {
      if (++opens > limit) return true;
    }
  }
  return false;
}

/** The index of the quote that closes a string starting at `from`, or -1. */
function closingQuote(raw: Buffer, from: number): number {
  let quote = raw.indexOf(QUOTE, from);
  while (quote !== -1) {
    // A quote after an odd run of backslashes is escaped.
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && raw[quote - backslashes - 1] === BACKSLASH)
      backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = raw.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/**
 * CONTRACT, Bad input: a JSON body that is empty, unparsable, not valid UTF-8, or nested
 * deeper than 64 levels is refused with the problem named. Never throws.
 */
export function parseJsonBody(raw: Buffer): JsonBody {
  if (raw.length === 0) return { ok: false, problem: BODY_PROBLEMS.empty };
  // Decoding would replace bad bytes with U+FFFD and store text other than what was signed.
  if (!isUtf8(raw)) return { ok: false, problem: BODY_PROBLEMS.notUtf8 };
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) return { ok: false, problem: BODY_PROBLEMS.tooDeep };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch (error) {
    return { ok: false, problem: BODY_PROBLEMS.notJson((error as Error).message) };
  }
}

/** The app-wide `application/json` parser: the contract's 400s before any handler runs. */
export function acceptStrictJson(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  // CONTRACT, Hostile clients: no route reads plain text, and a web page can post it.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, raw, done) => {
    const parsed = parseJsonBody(raw as Buffer);
    if (parsed.ok) done(null, parsed.value);
    else done(errors.badBody(parsed.problem), undefined);
  });
}

/** The content types an HTML form can send from any web page without a preflight. */
const FORM_TYPES = new Set([
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
  );
}

function essence(contentType: string): string {
  return contentType.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * For routes that take any body whatever it claims to be (the spec's "HTTP 200 always" chat
 * webhook, the tracker webhook's "unparsable is an empty object"): the declared type is not
 * consulted, so even a content type Fastify cannot parse (`a/b/c;;;`) reaches the handler.
 * CONTRACT, Hostile clients: unless a configured secret guards the routes (`guarded`), a
 * form or plain-text post is refused with 415, so a web page cannot post to them.
 */
export function acceptAnyBody(
  scope: FastifyInstance,
  parse: (request: FastifyRequest, raw: Buffer) => unknown,
  { guarded }: { guarded: boolean },
): void {
  scope.removeAllContentTypeParsers();
  // Callback style, not async: every webhook request runs it, and a promise each time shows.
  scope.addHook('onRequest', (request, _reply, done) => {
    const type = request.headers['content-type'];
    if (!guarded && request.method === 'POST') {
      // A body without a type is what a page's `sendBeacon` or no-cors `fetch` of a Blob
      // sends, as freely as a form.
      if (type === undefined && hasBody(request)) {
        return done(errors.unsupportedMediaType('none'));
      }
      if (type !== undefined && FORM_TYPES.has(essence(type))) {
        return done(errors.unsupportedMediaType(essence(type)));
      }
    }
    if (type !== undefined) request.headers['content-type'] = 'application/octet-stream';
    done();
  });
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => {
    done(null, parse(request, raw as Buffer));
  });
}
