/**
 * The four readback lists of the spec (Endpoints), transcribed as written: each `;` list and
 * table row of the spec is one string here, parsed below the way the spec writes it. The
 * catalog walk fails when a path listed here is not served, or is served as another kind.
 */
const COMMITTED_REDACTED_LINES = [
  'ai-agent-market-radar-readback; ai-technology-radar-readback; ai-technology-report-cadence-readback',
  'automation-inventory-snapshot; platform-status-cleanup-dashboard; delivery-closure-workbench (aggregates cleanup, private git inventory, delivery baseline, runner, runtime surface and backup/DR documents)',
  'product-platform-manifest-standard; p0-cicd-baseline-source-readiness; reboot-auto-recovery-slo-scorecard (also merged with bundle-backup and public-API runtime readbacks)',
  'agent-12-agent-war-room; agent-professional-task-expansion; agent-receipt-readback-owner-review; agent-report-no-write-analysis-runtime',
  'agent-low-medium-risk-whitelist; agent-high-risk-owner-review-queue; agent-failure-receipt-no-send-replay; agent-reviewer-queue-no-write-readback',
  'agent-result-capture-no-write-readback; agent-result-capture-promotion-approval-gate; agent-owner-approved-result-capture-promotion-dry-run; agent-result-capture-write-gate-review',
  'agent-result-capture-writer-implementation-review; agent-result-capture-writer-dry-run-fixture; agent-result-capture-writer-dry-run-readback; agent-result-capture-owner-promotion-review',
  'agent-result-capture-owner-approved-execution-rehearsal; agent-result-capture-owner-acceptance-maintenance-gate; agent-result-capture-owner-acceptance-readback-preflight-hold',
  'agent-result-capture-owner-approved-preflight-release-package; agent-result-capture-owner-approved-release-readiness-readback; agent-result-capture-owner-release-approval-gate; agent-result-capture-post-release-verifier-rollback-gate',
  'agent-log-feedback-receipt-dry-run; agent-log-post-write-verifier-dry-run; agent-log-controlled-writeback-plan-readback; agent-log-controlled-writeback-executor-readback',
  'agent-report-automation-review; agent-report-status-board',
  'winhost-vmx-source-repair-package; winhost-vmware-autostart-check-mode-package; winhost-vmx-source-locator-readback',
  'vcshost-target-private-backup-evidence-gate',
];

const COMMITTED_RAW_LINE =
  'market-governance-snapshot; automation-backlog-snapshot; agent-deployment-layout; agent-communication-learning-contract; agent-interaction-learning-proof; agent-live-read-model-gate; agent-kvstore-dry-run-gate; agent-learning-writeback-approval-package; agent-chatops-receipt-approval-package; agent-owner-approved-learning-dry-run; agent-runtime-write-gate-review; agent-post-write-verifier-package; agent-runtime-verifier-evidence-review; agent-report-truth-actionability-review; agent-report-runtime-readiness; agent-report-runtime-dry-run; agent-report-runtime-fixture-readback; agent-runtime-worker-shadow-gate; agent-operation-permission-model.';

/** First cell and Errors cell of each row of the live table. */
const LIVE_ROWS: ReadonlyArray<readonly [string, string]> = [
  ['agent-autonomous-runtime-control', '500 on invalid data'],
  ['agentcore-live-ops-scene-state', '500 on invalid data'],
  ['platform-priority-work-order-readback', '404 missing data, 500 invalid'],
  ['marketdata-public-api-runtime-readback', '500 on invalid data'],
  ['marketdata-public-api-controlled-recovery-preflight', '500 on invalid data'],
  ['imgstore-registry-controlled-recovery-preflight', '500 on invalid data'],
  [
    'platform-gitserver-onboarding-warning-step-template-copy-apply-gate, ...-template-copy-execution-plan, ...-template-copy-receipt, ...-runtime-enablement-gate',
    '500 on invalid data',
  ],
  ['agent-log-controlled-writeback-consumer-readback', '500 on invalid data'],
  ['chatops-alert-learning-context-post-apply-verifier', '500 on invalid data'],
  ['chatops-alert-monitoring-coverage-readback', '404 missing data, 500 invalid'],
  ['chatops-alert-monitoring-live-receipt-apply-readback', '500 on invalid data'],
  ['agent-report-source-health', '500 on any exception'],
];

/** First cell and Body cell of each row of the POST table. */
const POST_ROWS: ReadonlyArray<readonly [string, string]> = [
  ['imgstore-registry-controlled-recovery-receipt', 'JSON object (recovery receipt)'],
  ['vcshost-target-owner-response-intake-preflight', 'JSON object (owner response candidate)'],
  [
    'vcshost-target-safe-credential-evidence-reviewer-validation/validate-redacted-refs',
    'JSON object (redacted evidence refs)',
  ],
  ['agent-log-controlled-writeback-dispatch', 'none'],
  ['agent-log-controlled-writeback-consumer-apply', 'none'],
  ['chatops-alert-monitoring-live-receipt-apply', 'none'],
];

function semicolonList(line: string): string[] {
  return line
    .replace(/\.$/, '')
    .split(';')
    .map((item) => item.replace(/\(.*\)/, '').trim())
    .filter(Boolean);
}

/** `first, ...-suffix, ...` expands `...` to the common stem of the first path. */
function expandRow(cell: string): string[] {
  const [first = '', ...rest] = cell.split(',').map((part) => part.trim());
  if (rest.length === 0) return [first];
  const stem = 'platform-gitserver-onboarding-warning-step';
  if (!first.startsWith(stem)) throw new Error(`cannot expand ${cell}`);
  return [first, ...rest.map((part) => `${stem}${part.replace(/^\.\.\./, '')}`)];
}

export const SPEC_COMMITTED_REDACTED = COMMITTED_REDACTED_LINES.flatMap(semicolonList);
export const SPEC_COMMITTED_RAW = semicolonList(COMMITTED_RAW_LINE);
export const SPEC_LIVE = LIVE_ROWS.flatMap(([cell, errors]) =>
  expandRow(cell).map((path) => ({ path, has404: errors.includes('404') })),
);
export const SPEC_POST = POST_ROWS.map(([path, body]) => ({ path, hasBody: body !== 'none' }));
/** spec: delivery-closure-workbench "aggregates", reboot-auto-recovery-slo-scorecard "also merged". */
export const SPEC_COMPOSED = ['delivery-closure-workbench', 'reboot-auto-recovery-slo-scorecard'];
