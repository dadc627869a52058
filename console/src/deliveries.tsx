import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { ExternalEvent, ExternalEventDetail, ExternalEventPage } from './api-types';
import { useNow } from './hooks';
import { LinkedApproval } from './linked-approval';
import { RecordLink } from './links';
import { JsonText, Outside } from './outside';
import { onFeedEvent } from './sse';
import { age, when } from './time-text';
import { Loading, useLoad } from './views-common';

const STAGES = ['received', 'deduplicated', 'approval_linked', 'upstream_canary'];

interface Delivery {
  key: string;
  provider: string;
  issue_id: string;
  title: string;
  severity: string;
  project: string;
  last: string;
  stages: ExternalEvent[];
}

function grouped(events: ExternalEvent[]): Delivery[] {
  const map = new Map<string, Delivery>();
  for (const event of events) {
    const key = `${event.provider}:${event.issue_id}`;
    let delivery = map.get(key);
    if (!delivery) {
      delivery = {
        key,
        provider: event.provider,
        issue_id: event.issue_id,
        title: event.title,
        severity: event.severity,
        project: event.project,
        last: event.created_at,
        stages: [],
      };
      map.set(key, delivery);
    }
    delivery.stages.push(event);
    if (Date.parse(event.created_at) > Date.parse(delivery.last)) delivery.last = event.created_at;
  }
  for (const delivery of map.values()) {
    delivery.stages.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
  }
  return [...map.values()].sort((a, b) => Date.parse(b.last) - Date.parse(a.last));
}

export function DeliveriesView() {
  const now = useNow();
  const [stage, setStage] = useState('');
  const { data, error, reload } = useLoad(
    () =>
      api<ExternalEventPage>(
        `/api/v1/external-alert-events?limit=200${stage ? `&stage=${encodeURIComponent(stage)}` : ''}`,
      ),
    [stage],
  );
  useEffect(
    () =>
      onFeedEvent((event) => {
        if (event.type === 'approval.created' && event.issue_id) reload();
      }),
    [],
  );
  const deliveries = data ? grouped(data.items) : [];
  return (
    <section aria-labelledby="deliveries-title">
      <h1 id="deliveries-title">Error-tracker deliveries</h1>
      <p class="muted">
        Every recorded stage of every delivery, grouped by issue: received, deduplicated,
        approval_linked, upstream_canary.
      </p>
      <div class="filters">
        <div class="field">
          <label for="stage-filter">Stage</label>
          <select
            id="stage-filter"
            value={stage}
            onChange={(event) => setStage(event.currentTarget.value)}
          >
            <option value="">All stages</option>
            {STAGES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      {!data ? (
        <Loading error={error} />
      ) : deliveries.length === 0 ? (
        <p class="muted">No delivery recorded yet.</p>
      ) : (
        <ul class="cards">
          {deliveries.map((delivery) => (
            <li key={delivery.key} class="card" data-delivery={delivery.issue_id}>
              <div class="card-head">
                <h2 class="card-title">
                  <Outside>{delivery.title || delivery.issue_id}</Outside>
                </h2>
                <span class={`badge severity-${delivery.severity}`}>
                  <Outside>{delivery.severity}</Outside>
                </span>
              </div>
              <p class="meta">
                <Outside>{delivery.provider}</Outside> · issue{' '}
                <code>
                  <Outside>{delivery.issue_id}</Outside>
                </code>{' '}
                · <Outside>{delivery.project}</Outside> · {age(delivery.last, now)} ago
              </p>
              <ol class="stages">
                {delivery.stages.map((event) => (
                  <StageItem key={event.id} event={event} />
                ))}
              </ol>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function StageItem({ event }: { event: ExternalEvent }) {
  const [open, setOpen] = useState(false);
  // Fetched on the first opening only, then kept while the item closes and opens again.
  const [wanted, setWanted] = useState(false);
  const { data: detail, error } = useLoad(
    () =>
      wanted
        ? api<ExternalEventDetail>(`/api/v1/external-alert-events/${encodeURIComponent(event.id)}`)
        : Promise.resolve(null),
    [wanted, event.id],
  );
  const toggle = () => {
    setOpen(!open);
    setWanted(true);
  };
  const detailId = `stage-${event.id}`;
  return (
    <li class="stage" data-stage={event.stage}>
      <div class="stage-head">
        <span class={`badge stage-${event.stage}`}>
          <Outside>{event.stage}</Outside>
        </span>
        <time dateTime={event.created_at}>{when(event.created_at)}</time>
        {event.approval_id && (
          <span>
            Approval <RecordLink kind="approval" id={event.approval_id} />
          </span>
        )}
        {event.operator_id && (
          <span class="muted">
            by <Outside>{event.operator_id}</Outside>
          </span>
        )}
        <button
          type="button"
          class="link"
          aria-expanded={open}
          aria-controls={detailId}
          onClick={toggle}
        >
          {open ? 'Hide detail' : 'Show detail'}
        </button>
      </div>
      {event.stage === 'approval_linked' && event.approval_id && (
        <LinkedApproval id={event.approval_id} />
      )}
      {open && (
        <div id={detailId} class="stage-detail">
          {error ? (
            <p class="error">
              <Outside>{error}</Outside>
            </p>
          ) : !detail ? (
            <p class="muted">Loading…</p>
          ) : (
            <>
              <dl class="facts">
                <dt>Fingerprint</dt>
                <dd>
                  <code>
                    <Outside>{detail.fingerprint}</Outside>
                  </code>
                </dd>
                <dt>Target</dt>
                <dd>
                  <Outside>{detail.target_resource || '–'}</Outside>
                </dd>
                <dt>Namespace</dt>
                <dd>
                  <Outside>{detail.namespace || '–'}</Outside>
                </dd>
                {detail.auth_method && (
                  <>
                    <dt>Auth</dt>
                    <dd>
                      <Outside>{detail.auth_method}</Outside>
                    </dd>
                  </>
                )}
                {detail.source_url && (
                  <>
                    <dt>Source</dt>
                    <dd class="wrap">
                      <Outside>{detail.source_url}</Outside>
                    </dd>
                  </>
                )}
              </dl>
              <pre class="json">
                <JsonText text={JSON.stringify(detail.payload, null, 2) ?? ''} />
              </pre>
            </>
          )}
        </div>
      )}
    </li>
  );
}
