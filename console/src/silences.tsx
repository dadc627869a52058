import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { IncidentDetail, SilenceList } from './api-types';
import { useHash, useNow } from './hooks';
import { RecordLink } from './links';
import { Outside } from './outside';
import { SilenceForm } from './silence-form';
import { SilenceItem } from './silence-item';
import { matchersFromIncident } from './silence-text';
import { onFeedEvent } from './sse';
import { Loading, useLoad } from './views-common';

/** Muting leaves no event in the feed, so the counts of what each silence muted are polled. */
const REFRESH_MS = 5000;

/** The form, prefilled from `#/silences?incident=<id>` when the operator came from one. */
function NewSilence({ incidentId, onCreated }: { incidentId: string | null; onCreated(): void }) {
  const incident = useLoad(
    () =>
      incidentId
        ? api<IncidentDetail>(`/api/v1/incidents/${encodeURIComponent(incidentId)}`)
        : Promise.resolve(null),
    [incidentId],
  );
  if (!incidentId) return <SilenceForm initial={[]} comment="" onCreated={onCreated} />;
  if (!incident.data) return <Loading error={incident.error} />;
  const { data } = incident;
  return (
    <>
      <p>
        Silencing alerts like incident{' '}
        <RecordLink kind="incident" id={data.id}>
          <Outside>{data.alert_name}</Outside>
        </RecordLink>{' '}
        (<Outside>{data.namespace}</Outside>/<Outside>{data.workload}</Outside>): its labels are the
        matchers below; remove those that should not narrow the silence.
      </p>
      {/* Keyed so that another incident starts a fresh form. */}
      <SilenceForm
        key={data.id}
        initial={matchersFromIncident(data)}
        comment={`Silenced from the console for incident ${data.id}`}
        onCreated={onCreated}
      />
    </>
  );
}

export function SilencesView({ incident }: { incident: string | null }) {
  const now = useNow(5000);
  const listed = useLoad(() => api<SilenceList>('/api/v1/alertmanager/api/v2/silences'), []);
  const [showForm, setShowForm] = useState(incident !== null);
  // `#/silences?silence=<id>` (every silence id links there) marks that silence.
  const wanted = new URLSearchParams(useHash().split('?')[1] ?? '').get('silence');
  // A call, not a component: a component made per render would remount its items each time.
  const items = (label: string, silences: SilenceList) => (
    <ul class="cards grid" aria-label={label}>
      {silences.map((silence) => (
        <SilenceItem
          key={silence.id}
          silence={silence}
          now={now}
          onExpired={listed.reload}
          highlighted={silence.id === wanted}
        />
      ))}
    </ul>
  );

  useEffect(() => {
    const timer = setInterval(() => listed.reload(), REFRESH_MS);
    const off = onFeedEvent((event) => {
      if (event.type.startsWith('silence.')) listed.reload();
    });
    return () => {
      clearInterval(timer);
      off();
    };
  }, []);
  useEffect(() => {
    if (incident !== null) setShowForm(true);
  }, [incident]);

  const silences = listed.data ?? [];
  const current = silences.filter((silence) => silence.status.state !== 'expired');
  const expired = silences.filter((silence) => silence.status.state === 'expired');
  return (
    <section aria-labelledby="silences-title" class="silences">
      <h1 id="silences-title">Silences</h1>
      <p class="muted">
        A silence mutes firing alerts whose labels match it: they open and change no incident. Make
        one from an incident&rsquo;s page, or here.
      </p>
      {showForm ? (
        <NewSilence incidentId={incident} onCreated={listed.reload} />
      ) : (
        <button type="button" onClick={() => setShowForm(true)}>
          New silence
        </button>
      )}
      <h2>
        Active and pending <span class="count">{current.length}</span>
      </h2>
      {!listed.data ? (
        <Loading error={listed.error} />
      ) : current.length === 0 ? (
        <p class="muted">No silence is muting anything.</p>
      ) : (
        items('Active and pending silences', current)
      )}
      {expired.length > 0 && (
        <details
          class="expired-silences"
          open={expired.some((silence) => silence.id === wanted) || undefined}
        >
          <summary>
            Expired <span class="count">{expired.length}</span>
          </summary>
          {items('Expired silences', expired)}
        </details>
      )}
    </section>
  );
}
