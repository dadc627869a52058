import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/build-app.js';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, { content?: unknown }> }>>;
}

/**
 * STYLE, Habits: "every route declares its responses, so the OpenAPI document is complete".
 * Walks /openapi.json and names every operation without a 2xx response schema.
 */
describe('every operation documents its success answer', () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    document = (await app.inject('/openapi.json')).json() as OpenApiDocument;
  });

  it('has no operation without a 2xx response body schema', () => {
    const missing: string[] = [];
    let operations = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations += 1;
        const success = Object.entries(operation.responses ?? {}).filter(([status]) =>
          /^2\d\d$/.test(status),
        );
        // A 204 or a 304 carries no body; every other success must say what it carries.
        const documented = success.some(
          ([status, response]) => status === '204' || response.content !== undefined,
        );
        if (!documented) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(operations).toBeGreaterThan(90);
    expect(missing).toEqual([]);
  });
});
