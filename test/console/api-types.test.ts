import fs from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import {
  consoleApiTypes,
  consoleDocument,
  GENERATED_FILE,
  GENERATED_PATH,
} from '../../scripts/console-api-types.js';

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
