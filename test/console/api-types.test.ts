import fs from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import {
  consoleApiTypes,
  consoleDocument,
  GENERATED_FILE,
  GENERATED_PATH,
} from '../../scripts/console-api-types.js';
import { FEED_EVENT_NAMES } from '../../src/features/events/feed-event-types.js';

/**
 * The console compiles against types generated from the service's OpenAPI document; this fails
 * when a route's response schema changed and the committed file was not generated again.
 */
describe('the console API types', () => {
  it('are what the service schemas generate now', async () => {
    const committed = fs.readFileSync(GENERATED_PATH, 'utf8');
    const generated = await consoleApiTypes();
    expect(committed, `${GENERATED_FILE} is stale: run npx tsx scripts/console-api-types.ts`).toBe(
      generated,
    );
  });

  it("carry the feed's events as one union, a member for each event the service declares", () => {
    const empty: OpenAPI3 = { openapi: '3.0.3', info: { title: 'service', version: '0' } };
    const { FeedEvent } = consoleDocument(empty, []).components?.schemas ?? {};
    const members: Array<{ properties: { type: { const: string } } }> = JSON.parse(
      JSON.stringify(FeedEvent),
    ).anyOf;
    expect(members.map((member) => member.properties.type.const)).toEqual(FEED_EVENT_NAMES);
    expect(fs.readFileSync(GENERATED_PATH, 'utf8')).toContain(
      "export type FeedEvent = components['schemas']['FeedEvent'];",
    );
  });

  it('refuse a service schema named as the feed events are', () => {
    const document: OpenAPI3 = {
      openapi: '3.0.3',
      info: { title: 'service', version: '0' },
      components: { schemas: { FeedEvent: { type: 'string' } } },
    };
    expect(() => consoleDocument(document, [])).toThrow('FeedEvent is a schema of the service too');
  });

  it('refuse a route whose answer has no JSON schema, naming it', () => {
    const document: OpenAPI3 = {
      openapi: '3.0.3',
      info: { title: 'service', version: '0' },
      paths: {
        '/api/v1/incidents': {
          get: { responses: { '200': { description: 'text', content: { 'text/plain': {} } } } },
        },
      },
    };
    expect(() => consoleDocument(document)).toThrow(
      'GET /api/v1/incidents declares no inline 200 JSON schema',
    );
  });
});
