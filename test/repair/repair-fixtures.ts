import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ApprovalStatus, RiskLevel } from '../../src/features/approvals/approval-domain.js';
import { insertApproval } from '../../src/features/approvals/approval-records.js';
import type { MoveApproval, RepairDeps } from '../../src/features/repair/repair-deps.js';
import type { Store } from '../../src/ports/store.js';

export interface IncidentInput {
  alert_type: string;
  severity?: string;
  namespace?: string;
  workload?: string;
  target_resource?: string;
  labels?: Record<string, string>;
  risk?: RiskLevel;
}

/**
 * An incident and its pending approval, written directly: going through the alert webhook
 * would also start whatever background work the app wires to new approvals.
 */
export async function seedIncidentApproval(store: Store, input: IncidentInput, now = Date.now()) {
  const incidentId = `inc-${crypto.randomUUID()}`;
  const namespace = input.namespace ?? 'shop';
  const workload = input.workload ?? 'checkout';
  const approvalId = await insertApproval(
    store.db,
    {
      incidentId,
      riskLevel: input.risk ?? 'medium',
      action: `${input.alert_type} on ${namespace}/${workload}`,
      description: 'test',
      requestedBy: 'test',
      metadata: { alert_type: input.alert_type },
    },
    now,
  );
  await store.db
    .insertInto('incidents')
    .values({
      id: incidentId,
      fingerprint: crypto.randomBytes(16).toString('hex'),
      namespace,
      workload,
      alert_type: input.alert_type,
      alert_type_source: 'test',
      alert_name: input.alert_type,
      severity: input.severity ?? 'P2',
      source: 'test',
      target_resource: input.target_resource ?? `${workload}-7d9f8b6c5-x2x4z`,
      message: '',
      labels: JSON.stringify(input.labels ?? {}),
      annotations: '{}',
      status: 'open',
      hit_count: 1,
      first_seen: now,
      last_seen: now,
      approval_id: approvalId,
    })
    .execute();
  return { incidentId, approvalId };
}

export interface Move {
  approvalId: string;
  from: readonly ApprovalStatus[];
  to: ApprovalStatus;
  actor: string;
  channel: string;
  moved: boolean;
}

/** A compare-and-set mover like the one the approvals feature provides, recording each call. */
export function recordingMover(store: Store, moves: Move[]): MoveApproval {
  return async (approvalId, from, to, actor, channel) => {
    const result = await store.db
      .updateTable('approvals')
      .set({ status: to, updated_at: Date.now() })
      .where('id', '=', approvalId)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    const moved = Number(result.numUpdatedRows) === 1;
    moves.push({ approvalId, from, to, actor, channel, moved });
    return moved;
  };
}

export function repairDeps(
  app: FastifyInstance,
  overrides: Partial<RepairDeps> & Pick<RepairDeps, 'executor' | 'playbooks'>,
) {
  const moves: Move[] = [];
  const messages: Parameters<RepairDeps['notifyResult']>[0][] = [];
  const deps: RepairDeps = {
    moveApproval: recordingMover(app.services.store, moves),
    notifyResult: async (message) => {
      messages.push(message);
    },
    ...overrides,
  };
  return { deps, moves, messages };
}

export async function setApprovalStatus(store: Store, approvalId: string, status: ApprovalStatus) {
  await store.db.updateTable('approvals').set({ status }).where('id', '=', approvalId).execute();
}

export async function operationsOf(store: Store, approvalId: string) {
  return store.db
    .selectFrom('operation_log')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .orderBy('seq')
    .execute();
}
