import { defineConfig } from 'vitest/config';

// `vitest list` only collects, so its files can share one module graph: seconds, where a
// fresh worker per file takes minutes.
const listing = process.argv[2] === 'list';

/**
 * Suites that start processes of their own (the service, its CLIs, private PostgreSQL or
 * Redis, real peers) or kill them. They share one module graph per worker like the others
 * (a fresh worker per file cost a sixth more CPU); what they start ends at file end.
 */
const PROCESS = [
  'test/**/*.process.test.ts',
  'test/analysis/analysis-durability.test.ts',
  'test/architecture/loads-without-services.test.ts',
  'test/architecture/start-flags.test.ts',
  'test/cards/card-cut-off.test.ts',
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
/**
 * Suites that wait on real time (leases, retries, backoffs, long polls, loads): five
 * seconds or more each. Without them `npm run test:fast` answers within a minute.
 */
const SLOW = [
  'test/analysis/analysis-stream.test.ts',
  'test/analysis/analyze-http.test.ts',
  'test/cards/card-sender.test.ts',
  'test/cards/first-card-order.test.ts',
  'test/cards/hit-count-throttle.test.ts',
  'test/chat/chat-storm.test.ts',
  'test/chat/chatops.test.ts',
  'test/chat/polling-lease.test.ts',
  'test/chat/second-signer.test.ts',
  'test/chat/telegram-chat.test.ts',
  'test/contract/jobs.contract.test.ts',
  'test/contract/lock-rows.test.ts',
  'test/contract/once-keys.contract.test.ts',
  'test/contract/remembered-once-keys.test.ts',
  'test/contract/sql-jobs.test.ts',
  'test/contract/store.contract.test.ts',
  'test/contract/stream.contract.test.ts',
  'test/errtracker/analysis-outbox.test.ts',
  'test/errtracker/webhook.test.ts',
  'test/escalation/incident-follow-up.test.ts',
  'test/events/event-feed.test.ts',
  'test/events/feed-bursts.test.ts',
  'test/events/feed-stalled-streams.test.ts',
  'test/foundation/built-once.test.ts',
  'test/foundation/operator-metrics.test.ts',
  'test/foundation/read-api-lists.test.ts',
  'test/foundation/shutdown.test.ts',
  'test/heartbeats/heartbeat-durable.test.ts',
  'test/heartbeats/heartbeats-at-scale.test.ts',
  'test/heartbeats/heartbeats.test.ts',
  'test/incidents/incident-list.test.ts',
  'test/incidents/lifecycle.test.ts',
  'test/intake/signals.test.ts',
  'test/oplog/operation-claims.test.ts',
  'test/outbox/incident-follow-up-outbox.test.ts',
  'test/security/fuzz-short.test.ts',
  'test/security/hostile-connections.test.ts',
  'test/security/hostile-requests.test.ts',
  'test/security/regex-linearity.test.ts',
  'test/silences/silence-limits-load.test.ts',
  'test/silences/silences-api.test.ts',
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
    // The service's entry points bundled once for the suites that start it as a process.
    globalSetup: ['test/setup/build-service.ts'],
    // Most suites wait on sockets, timers and databases rather than the CPU. A fourth worker
    // made the browser and PostgreSQL suites time out on a 2-core machine: with four, 12 of
    // 4,192 tests failed in one full run (820 s); with three, 1 (857 s).
    maxWorkers: 3,
    // Started in this order: the longest files first, the quick ones filling in around them.
    projects: [
      { test: { ...shared, name: 'process', include: PROCESS, isolate: false } },
      { test: { ...shared, name: 'browser', include: BROWSER, isolate: !listing } },
      { test: { ...shared, name: 'slow', include: SLOW, isolate: false } },
      {
        test: {
          ...shared,
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...PROCESS, ...SLOW, ...BROWSER, ...TIMED],
          // The suites share one module graph per worker: the app is imported once per
          // worker, not once per file. Helpers stop what a file started (file-end.ts).
          isolate: false,
        },
      },
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
