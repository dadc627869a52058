/**
 * The incidents of the Now view. Unfiltered (the unresolved ones by urgency) the list follows
 * the feed from each event's own fields, reading only incidents it does not hold, in batches;
 * a search or a time range shows what the service answered, with live counts and statuses on
 * the rows shown and an offer to read again when new incidents arrive.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { activityChanged, activityLog } from './activity-feed';
import { ApiError, api, signInCount } from './api';
import type { IncidentPage } from './api-types';
import { batchLoader } from './batch-loader';
import { useCoalescedRedraw, useWatched } from './hooks';
import { type IncidentRow, IncidentStore } from './incident-store';
import { incidentsPath, isLive, keeps, type NowFilters, PAGE_SIZE } from './now-query';
import { byUrgency } from './severity';
import { feedResumes, onFeedEvent } from './sse';

/**
 * The Now view holds at most this many incidents beyond those paged in by hand (a few hundred
 * kB). One dropped and hit again is read again, so the bound is well above a storm's size.
 */
const HELD = 2000;

export interface NowIncidents {
  rows: IncidentRow[];
  /** Whether more can be shown: held rows past those shown, or a next page. */
  more: boolean;
  showMore(): void;
  loading: boolean;
  error: string | null;
  /** Incidents opened since a searched list was read (it does not follow the feed). */
  arrived: number;
  reload(): void;
}

/** Rows read from the service also name their incidents in the Activity list. */
function remember(rows: IncidentRow[]) {
  for (const row of rows) {
    activityLog.noteIncident(row.id, {
      alert_name: row.alert_name,
      namespace: row.namespace,
      severity: row.severity,
    });
  }
  activityChanged();
}

const errorText = (reason: unknown) => (reason instanceof Error ? reason.message : String(reason));

export function useNowIncidents(filters: NowFilters): NowIncidents {
  const live = isLive(filters);
  const key = incidentsPath(filters);
  const signIns = useWatched(signInCount);
  const resumes = useWatched(feedResumes);
  const redraw = useCoalescedRedraw();
  const store = useMemo(() => new IncidentStore(HELD), [key, signIns, resumes]);
  const current = useRef(store);
  current.current = store;
  /** The service's order of a searched list (live lists are ranked here). */
  const order = useRef<string[]>([]);
  const cursor = useRef<string | null>(null);
  /**
   * The last row of the last page read while more pages remain: every incident that ranks
   * above it is held (one that moves up is heard of), so a live list shows nothing below it.
   */
  const boundary = useRef<IncidentRow | null>(null);
  const arrived = useRef(0);
  const [shown, setShown] = useState(PAGE_SIZE);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);

  const readPage = async (from: string | null) => {
    const target = store;
    setLoading(true);
    try {
      const page = await api<IncidentPage>(incidentsPath(filters, from));
      // Filters changed while it was read: the answer is for a list no longer shown.
      if (current.current !== target) return;
      store.merge(page.items);
      const ids = page.items.map((item) => item.id);
      order.current = from ? [...order.current, ...ids] : ids;
      cursor.current = page.next_cursor;
      const last = page.items.at(-1);
      boundary.current = page.next_cursor && last ? { ...last } : null;
      setError(null);
      remember(page.items);
    } catch (reason) {
      if (!(reason instanceof ApiError && [401, 403].includes(reason.status))) {
        setError(errorText(reason));
      }
    } finally {
      setLoading(false);
      redraw();
    }
  };

  useEffect(() => {
    setShown(PAGE_SIZE);
    arrived.current = 0;
    cursor.current = null;
    boundary.current = null;
    order.current = [];
    void readPage(null);
  }, [store, reads]);

  useEffect(() => {
    const loader = batchLoader<IncidentRow>({
      load: async (ids) =>
        (await api<IncidentPage>(`/api/v1/incidents?ids=${ids.join(',')}&limit=${ids.length}`))
          .items,
      onLoaded: (items) => {
        store.merge(items);
        remember(items);
        redraw();
      },
    });
    const off = onFeedEvent((event) => {
      if (!event.type.startsWith('incident.')) return;
      if (!live) {
        // A searched list keeps its rows current; a new incident only offers a new read.
        if (event.type === 'incident.created') {
          arrived.current += 1;
          redraw();
        } else if (store.apply(event) === 'changed') redraw();
        return;
      }
      const applied = store.apply(event);
      if (applied === 'unknown' && 'incident_id' in event && event.incident_id)
        loader.want(event.incident_id);
      if (applied === 'changed') redraw();
    });
    return () => {
      off();
      loader.stop();
    };
  }, [store, live]);

  if (live) store.trim(Math.max(HELD, shown + PAGE_SIZE));
  const below = boundary.current;
  const all = live
    ? store.ranked((row) => keeps(filters, row) && (!below || byUrgency(row, below) <= 0))
    : order.current.flatMap((id) => store.get(id) ?? []);
  return {
    rows: all.slice(0, shown),
    more: all.length > shown || cursor.current !== null,
    showMore: () => {
      setShown((count) => count + PAGE_SIZE);
      // The next page is read once the rows held run out (a live list holds more than it shows).
      if (all.length < shown + PAGE_SIZE && cursor.current) void readPage(cursor.current);
    },
    loading,
    error,
    arrived: arrived.current,
    reload: () => setReads((count) => count + 1),
  };
}
