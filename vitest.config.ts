import { defineConfig } from 'vitest/config';

// `vitest list` only collects, so its files can share one module graph: seconds, where a
// fresh worker per file takes minutes.
const listing = process.argv[2] === 'list';

/**
 * Suites that start processes of their own (the service, its CLIs, private PostgreSQL or
 * Redis, real peers) or kill them: each file in a fresh worker, as the process tests want.
 */
const PROCESS = [
  'test/**/*.process.test.ts',
  'test/analysis/analysis-durability.test.ts',
  'test/architecture/bench-bounds.test.ts',
  'test/architecture/loads-without-services.test.ts',
  'test/architecture/start-flags.test.ts',
  'test/chat/card-cut-off.test.ts',
  'test/chat/chatops.security.test.ts',
  'test/contract/pg-wakeups.test.ts',
  'test/errtracker/comment-once.test.ts',
  'test/errtracker/restart.test.ts',
  'test/foundation/config.test.ts',
  'test/foundation/readme-examples.test.ts',
  'test/foundation/secrets-in-logs.security.test.ts',
  'test/incidents/resolve-crash.test.ts',
  'test/intake/alertmanager-peer.test.ts',
  'test/intake/consumer-process.test.ts',
  'test/intake/prometheus-peer.test.ts',
  'test/inventory/inventory-cli.test.ts',
  'test/readbacks/readbacks-cli.test.ts',
  'test/reliability/*.test.ts',
  'test/security/credential-throttle.test.ts',
  'test/security/descriptor-limit.test.ts',
  'test/security/trust-proxy.test.ts',
  'test/silences/amtool-peer.test.ts',
];
/** The console in a real Chromium. */
const BROWSER = ['test/**/*.e2e.test.ts'];
/**
 * Suites whose contract names a time ("well under a second"): they run last, alone, so the
 * time they measure is the service's and not the other suites'.
 */
const TIMED = ['test/security/adversarial-bodies.test.ts'];

const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks' as const,
  setupFiles: ['test/setup/file-end.ts'],
  unstubEnvs: true,
};

export default defineConfig({
  test: {
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // Most suites wait on sockets, timers and databases rather than the CPU.
    maxWorkers: 4,
    projects: [
      {
        test: {
          ...shared,
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...PROCESS, ...BROWSER, ...TIMED],
          // The suites share one module graph per worker: the app is imported once per
          // worker, not once per file. Helpers stop what a file started (file-end.ts).
          isolate: false,
        },
      },
      { test: { ...shared, name: 'process', include: PROCESS, isolate: !listing } },
      { test: { ...shared, name: 'browser', include: BROWSER, isolate: !listing } },
      {
        test: {
          ...shared,
          name: 'timed',
          include: TIMED,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
