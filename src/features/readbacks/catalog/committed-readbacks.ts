import type { CommittedEntry, RawEntry } from './readback-types.js';

/**
 * spec, Endpoints: "Readbacks: committed documents, redacted, E-SNAP" and "committed
 * documents, RAW". Each is `$READBACK_DIR/<name>.json` served as committed; only the two
 * composed ones add sources.
 */
const REDACTED: ReadonlyArray<readonly [name: string, summary: string]> = [
  ['ai-agent-market-radar-readback', 'AI agent market radar'],
  ['ai-technology-radar-readback', 'AI technology radar'],
  ['ai-technology-report-cadence-readback', 'AI technology report cadence'],
  ['automation-inventory-snapshot', 'Automation inventory snapshot'],
  ['platform-status-cleanup-dashboard', 'Platform status cleanup dashboard'],
  ['product-platform-manifest-standard', 'Product platform manifest standard'],
  ['p0-cicd-baseline-source-readiness', 'P0 CI/CD baseline source readiness'],
  ['agent-12-agent-war-room', 'Twelve-agent war room'],
  ['agent-professional-task-expansion', 'Agent professional task expansion'],
  ['agent-receipt-readback-owner-review', 'Receipt readback owner review'],
  ['agent-report-no-write-analysis-runtime', 'Report no-write analysis runtime'],
  ['agent-low-medium-risk-whitelist', 'Low and medium risk whitelist'],
  ['agent-high-risk-owner-review-queue', 'High-risk owner review queue'],
  ['agent-failure-receipt-no-send-replay', 'Failure receipt no-send replay'],
  ['agent-reviewer-queue-no-write-readback', 'Reviewer queue no-write readback'],
  ['agent-result-capture-no-write-readback', 'Result capture no-write readback'],
  ['agent-result-capture-promotion-approval-gate', 'Result capture promotion approval gate'],
  [
    'agent-owner-approved-result-capture-promotion-dry-run',
    'Owner-approved result capture promotion dry run',
  ],
  ['agent-result-capture-write-gate-review', 'Result capture write gate review'],
  [
    'agent-result-capture-writer-implementation-review',
    'Result capture writer implementation review',
  ],
  ['agent-result-capture-writer-dry-run-fixture', 'Result capture writer dry-run fixture'],
  ['agent-result-capture-writer-dry-run-readback', 'Result capture writer dry-run readback'],
  ['agent-result-capture-owner-promotion-review', 'Result capture owner promotion review'],
  ['agent-result-capture-owner-approved-execution-rehearsal', 'Owner-approved execution rehearsal'],
  ['agent-result-capture-owner-acceptance-maintenance-gate', 'Owner acceptance maintenance gate'],
  [
    'agent-result-capture-owner-acceptance-readback-preflight-hold',
    'Owner acceptance readback preflight hold',
  ],
  [
    'agent-result-capture-owner-approved-preflight-release-package',
    'Owner-approved preflight release package',
  ],
  [
    'agent-result-capture-owner-approved-release-readiness-readback',
    'Owner-approved release readiness',
  ],
  ['agent-result-capture-owner-release-approval-gate', 'Owner release approval gate'],
  [
    'agent-result-capture-post-release-verifier-rollback-gate',
    'Post-release verifier and rollback gate',
  ],
  ['agent-log-feedback-receipt-dry-run', 'Log feedback receipt dry run'],
  ['agent-log-post-write-verifier-dry-run', 'Log post-write verifier dry run'],
  ['agent-log-controlled-writeback-plan-readback', 'Log controlled writeback plan'],
  ['agent-log-controlled-writeback-executor-readback', 'Log controlled writeback executor'],
  ['agent-report-automation-review', 'Report automation review'],
  ['agent-report-status-board', 'Report status board'],
  ['winhost-vmx-source-repair-package', 'Windows host VM config source repair package'],
  ['winhost-vmware-autostart-check-mode-package', 'Windows host VM autostart check-mode package'],
  ['winhost-vmx-source-locator-readback', 'Windows host VM config source locator'],
  [
    'vcshost-target-private-backup-evidence-gate',
    'Source-control host private backup evidence gate',
  ],
];

/**
 * The composed ones. The spec names the kinds of document merged, not their files; these
 * source names are ours (a readback where one exists, otherwise a committed source document
 * under the same folder; see SOURCE_DOCUMENTS).
 */
const COMPOSED: readonly CommittedEntry[] = [
  {
    kind: 'committed',
    name: 'delivery-closure-workbench',
    summary:
      'Delivery closure workbench: cleanup, private git inventory, delivery baseline, runner, runtime surface and backup/DR',
    sources: [
      { role: 'cleanup', readback: 'platform-status-cleanup-dashboard' },
      { role: 'private_git_inventory', readback: 'private-git-inventory' },
      { role: 'delivery_baseline', readback: 'p0-cicd-baseline-source-readiness' },
      { role: 'runner', readback: 'delivery-runner-readiness' },
      { role: 'runtime_surface', readback: 'runtime-surface-inventory' },
      { role: 'backup_dr', readback: 'backup-dr-readiness' },
    ],
  },
  {
    kind: 'committed',
    name: 'reboot-auto-recovery-slo-scorecard',
    summary:
      'Reboot auto-recovery SLO scorecard, merged with the bundle-backup and public-API runtime readbacks',
    sources: [
      { role: 'bundle_backup', readback: 'bundle-backup-readback' },
      {
        role: 'public_api_runtime',
        readback: 'marketdata-public-api-runtime-readback',
        live: true,
      },
    ],
  },
];

const RAW: readonly string[] = [
  'market-governance-snapshot',
  'automation-backlog-snapshot',
  'agent-deployment-layout',
  'agent-communication-learning-contract',
  'agent-interaction-learning-proof',
  'agent-live-read-model-gate',
  'agent-kvstore-dry-run-gate',
  'agent-learning-writeback-approval-package',
  'agent-chatops-receipt-approval-package',
  'agent-owner-approved-learning-dry-run',
  'agent-runtime-write-gate-review',
  'agent-post-write-verifier-package',
  'agent-runtime-verifier-evidence-review',
  'agent-report-truth-actionability-review',
  'agent-report-runtime-readiness',
  'agent-report-runtime-dry-run',
  'agent-report-runtime-fixture-readback',
  'agent-runtime-worker-shadow-gate',
  'agent-operation-permission-model',
];

export const COMMITTED_READBACKS: readonly CommittedEntry[] = [
  ...REDACTED.map(([name, summary]) => ({ kind: 'committed' as const, name, summary })),
  ...COMPOSED,
];

export const RAW_READBACKS: readonly RawEntry[] = RAW.map((name) => ({
  kind: 'raw',
  name,
  summary: `${name} (RAW: the committed file as is)`,
}));

/**
 * Committed documents that are inputs only (no path of their own): sources of the composed
 * readbacks and of the priority overlay, and the optional reviewer rules of the refs validator.
 */
export const SOURCE_DOCUMENTS: readonly string[] = [
  'private-git-inventory',
  'delivery-runner-readiness',
  'runtime-surface-inventory',
  'backup-dr-readiness',
  'bundle-backup-readback',
  'controlled-delivery-lane-metrics',
  'asset-capability-matrix',
  'vcshost-target-safe-credential-evidence-reviewer-validation',
];
