/**
 * What the Now view's header and pinned list need besides incidents: the pending approvals
 * waiting for this operator, and the unresolved incidents counted per severity. Both follow
 * the feed without a request per event: new approvals come from their events, signatures are
 * read in batches, and the counts are read again at most every two seconds.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { activityLog } from './activity-feed';
import { api, operator, signInCount } from './api';
import type { ApprovalPage } from './api-types';
import {
  type ApprovalIncidentRef,
  ApprovalStore,
  type ListedApproval,
  type PendingApproval,
} from './approval-store';
import { batchLoader, throttled } from './batch-loader';
import { useCoalescedRedraw, useWatched } from './hooks';
import type { Severity } from './severity';
import { feedResumes, onFeedEvent } from './sse';

/**
 * The pending approvals read when the view opens, page after page up to what the store keeps
 * (a P0's approval may be the oldest of hundreds); more arrive from the feed.
 */
const PENDING_PAGE = 200;
const PENDING_PAGES = 5;

/** Every pending approval, newest first, up to PENDING_PAGES pages; `merge` takes each page. */
async function readPending(merge: (items: ApprovalPage['items']) => void): Promise<void> {
  let cursor: string | null = null;
  for (let page = 0; page < PENDING_PAGES; page += 1) {
    const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const read: ApprovalPage = await api<ApprovalPage>(
      `/api/v1/approvals?status=pending&limit=${PENDING_PAGE}${after}`,
    );
    merge(read.items);
    cursor = read.next_cursor;
    if (!cursor) return;
  }
}
const COUNTS_EVERY_MS = 2000;

/** `GET /incidents/counts`: unresolved incidents per severity. */
export interface SeverityCounts {
  open: Record<Severity, number>;
  total: number;
}

/** The incident of an approval, as far as the feed and the lists named it. */
function incidentOf(id: string): ApprovalIncidentRef | undefined {
  const name = activityLog.incidentName(id);
  return name ? { ...name, severity: name.severity ?? '' } : undefined;
}

export function useWaitingApprovals(): { waiting: PendingApproval[]; error: string | null } {
  const signIns = useWatched(signInCount);
  const signedIn = useWatched(operator);
  const resumes = useWatched(feedResumes);
  const redraw = useCoalescedRedraw();
  const store = useMemo(() => new ApprovalStore(), [signIns, resumes]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    readPending((items) => {
      store.merge(items);
      redraw();
    }).then(
      () => setError(null),
      (reason: unknown) => setError(reason instanceof Error ? reason.message : String(reason)),
    );
    const loader = batchLoader<ListedApproval>({
      load: async (ids) =>
        (await api<ApprovalPage>(`/api/v1/approvals?ids=${ids.join(',')}&limit=${ids.length}`))
          .items,
      onLoaded: (items) => {
        store.merge(items);
        redraw();
      },
    });
    const off = onFeedEvent((event) => {
      const applied = store.apply(event, incidentOf);
      if (applied === 'read' && 'approval_id' in event && event.approval_id)
        loader.want(event.approval_id);
      if (applied !== 'ignored') redraw();
    });
    return () => {
      off();
      loader.stop();
    };
  }, [store]);

  // An approval held before its incident was named (the lists came first) learns it now.
  store.fillIncidents(incidentOf);
  return { waiting: store.waitingFor(signedIn?.id ?? null), error };
}

/** The counts per severity, read again (throttled) when an incident opens or moves. */
export function useSeverityCounts(): SeverityCounts | null {
  const signIns = useWatched(signInCount);
  const resumes = useWatched(feedResumes);
  const [counts, setCounts] = useState<SeverityCounts | null>(null);
  useEffect(() => {
    let gone = false;
    const read = throttled(() => {
      api<SeverityCounts>('/api/v1/incidents/counts').then(
        (answer) => {
          if (!gone) setCounts(answer);
        },
        () => {},
      );
    }, COUNTS_EVERY_MS);
    read.call();
    const off = onFeedEvent((event) => {
      if (event.type.startsWith('incident.') && event.type !== 'incident.converged') read.call();
    });
    return () => {
      gone = true;
      off();
      read.stop();
    };
  }, [signIns, resumes]);
  return counts;
}
