import { api } from './api';
import { DRY_RUN_TEXT, statusBadgeClass } from './oplog-text';
import { Outside } from './outside';
import type { ApprovalPageData } from './page-types';
import { useLoad } from './views-common';

interface AnomalyFrequency {
  anomaly_key?: string;
  count_1h?: number;
  count_24h?: number;
  count_7d?: number;
  count_30d?: number;
  auto_repair_count?: number;
  escalation_level?: string | null;
}

/** The analysis and the anomaly frequency live on the linked approval's metadata. */
export function LinkedApproval({ id }: { id: string }) {
  const { data } = useLoad(
    () => api<ApprovalPageData>(`/api/v1/approvals/${encodeURIComponent(id)}`).catch(() => null),
    [id],
  );
  if (!data) return null;
  const { metadata } = data;
  const frequency = metadata.anomaly_frequency as AnomalyFrequency | undefined;
  const provider = metadata.llm_provider as string | undefined;
  const confidence = metadata.llm_confidence as number | undefined;
  return (
    <div class="analysis-summary">
      <p>
        <span class={statusBadgeClass(data.status, data.dry_run)}>
          <Outside>{data.status}</Outside>
        </span>
        {data.dry_run && <span class="badge neutral">{DRY_RUN_TEXT}</span>} risk{' '}
        <strong>
          <Outside>{data.risk_level}</Outside>
        </strong>{' '}
        · <Outside>{data.action}</Outside>
        {provider && (
          <>
            {' '}
            · analysed by <Outside>{provider}</Outside>
            {typeof confidence === 'number' ? ` (confidence ${Math.round(confidence * 100)}%)` : ''}
          </>
        )}
      </p>
      {data.description && (
        <p class="pre">
          <Outside>{data.description}</Outside>
        </p>
      )}
      {frequency && (
        <p class="frequency" data-testid="anomaly-frequency">
          Anomaly frequency: {frequency.count_1h ?? 0} in 1 h, {frequency.count_24h ?? 0} in 24 h,{' '}
          {frequency.count_7d ?? 0} in 7 d, {frequency.count_30d ?? 0} in 30 d{' · '}
          <span class={`badge escalation-${frequency.escalation_level ?? 'none'}`}>
            <Outside>{frequency.escalation_level ?? 'no escalation'}</Outside>
          </span>
        </p>
      )}
    </div>
  );
}
