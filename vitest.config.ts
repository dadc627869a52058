import { defineConfig } from 'vitest/config';

// `vitest list` only collects, so its files can share one module graph: seconds, where a
// fresh worker per file takes minutes. Runs stay isolated: the helpers keep per-file state
// (cleanup lists whose afterAll is registered when the file imports them).
const listing = process.argv[2] === 'list';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    isolate: !listing,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
