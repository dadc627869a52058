import { api } from './api';
import type { IncidentPage } from './api-types';
import { RecordLink } from './links';
import { Outside } from './outside';
import { useLoad } from './views-common';

export interface IncidentName {
  alert_name: string;
  namespace: string;
}

/** At most this many ids in one batch read (CONTRACT, Operator console: `ids` ≤ 100). */
const BATCH = 100;

/**
 * The alert name and namespace of each incident in `ids`, read in one call (`GET /incidents
 * ?ids=`), so that a list names incidents rather than showing their ids. Empty until read, and
 * when the read fails: the links then show the ids.
 */
export function useIncidentNames(ids: readonly (string | null | undefined)[]) {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].slice(0, BATCH);
  const key = wanted.join(',');
  const { data } = useLoad(async () => {
    const names = new Map<string, IncidentName>();
    if (!key) return names;
    const query = new URLSearchParams({ ids: key, limit: String(BATCH) });
    try {
      const page = await api<IncidentPage>(`/api/v1/incidents?${query}`);
      for (const item of page.items) names.set(item.id, item);
    } catch {
      // The names are a convenience; the ids still link to the incidents.
    }
    return names;
  }, [key]);
  return data ?? new Map<string, IncidentName>();
}

/** A link to an incident named by its alert and namespace when known, else by its id. */
export function IncidentLink({ id, name }: { id: string; name: IncidentName | undefined }) {
  if (!name) return <RecordLink kind="incident" id={id} />;
  return (
    <RecordLink kind="incident" id={id}>
      <Outside>{name.alert_name}</Outside> in <Outside>{name.namespace}</Outside>
    </RecordLink>
  );
}
