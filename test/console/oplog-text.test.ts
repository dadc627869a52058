import { describe, expect, it } from 'vitest';
import {
  blockedText,
  DRY_RUN_TEXT,
  entryVerdict,
  outcomeNotes,
  statusBadgeClass,
} from '../../console/src/oplog-text.js';

const dryRun = {
  type: 'EXECUTION_COMPLETED',
  success: true,
  context: { executor: 'dry-run', playbook_id: 'restart-pod' },
};
const realRun = { ...dryRun, context: { executor: 'kubectl', playbook_id: 'restart-pod' } };
const blocked = {
  type: 'AUTO_REPAIR_TRIGGERED',
  success: false,
  action_detail: 'Auto-repair blocked (severity): P1 needs a person',
  context: { decision: { reason: 'P1 incidents need a person', blocked_by: 'severity' } },
};

describe('operation-log wording', () => {
  it('shows a dry run and a blocked repair as neutral, not ok or failed', () => {
    expect(entryVerdict(dryRun)).toEqual({ tone: 'neutral', text: DRY_RUN_TEXT });
    expect(DRY_RUN_TEXT).toBe('dry run: nothing was changed');
    expect(entryVerdict(blocked)).toEqual({ tone: 'neutral', text: 'blocked' });
    expect(entryVerdict(realRun)).toEqual({ tone: 'ok', text: 'ok' });
    expect(entryVerdict({ ...realRun, success: false })).toEqual({
      tone: 'failed',
      text: 'failed',
    });
    expect(entryVerdict({ type: 'AUTO_REPAIR_TRIGGERED', success: true, context: {} })).toEqual({
      tone: 'ok',
      text: 'ok',
    });
  });

  it("reads the approval's outcome from its fields, else from its log", () => {
    expect(outcomeNotes({ dry_run: true }, [])).toEqual({ dryRun: true, blocked: null });
    expect(outcomeNotes({}, [dryRun])).toEqual({ dryRun: true, blocked: null });
    expect(outcomeNotes({}, [realRun])).toEqual({ dryRun: false, blocked: null });
    expect(outcomeNotes({}, [blocked])).toEqual({
      dryRun: false,
      blocked: 'P1 incidents need a person',
    });
    expect(
      outcomeNotes(
        { auto_repair: { allowed: false, blocked_by: 'risk', reason: 'critical risk' } },
        [],
      ),
    ).toEqual({ dryRun: false, blocked: 'critical risk' });
    expect(
      outcomeNotes({ auto_repair: { allowed: true, blocked_by: null, reason: 'matches' } }, []),
    ).toEqual({ dryRun: false, blocked: null });
    expect(blockedText('critical risk')).toBe('Auto-repair blocked: critical risk');
  });

  it('shows an executed dry run in the neutral badge, every other status as it is', () => {
    expect(statusBadgeClass('executed', true)).toBe('badge status-neutral');
    expect(statusBadgeClass('executed', false)).toBe('badge status-executed');
    expect(statusBadgeClass('failed', true)).toBe('badge status-failed');
    expect(statusBadgeClass('pending', undefined)).toBe('badge status-pending');
  });
});
