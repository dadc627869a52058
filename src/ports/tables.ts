import type { Generated } from 'kysely';

/** `chat_cards.send_outcome`: the chat refused the card, or it waits out a 429 in a queue. */
export type CardSendOutcome = 'failed' | 'waiting';

/**
 * Row types of every table: the schema behind the store port, created by both SQL adapters
 * (src/adapters/sql/migrations.ts). Each table has one records module, the only code that
 * queries it (test/architecture/table-owners.test.ts). Times are epoch milliseconds;
 * JSON columns hold serialized text so SQLite and PostgreSQL store them the same way.
 */
export interface Tables {
  mutexes: { name: string; touched_at: number };
  once_keys: { scope: string; key: string; expires_at: number };
  incidents: {
    seq: Generated<number>;
    id: string;
    fingerprint: string;
    namespace: string;
    workload: string;
    alert_type: string;
    alert_type_source: string;
    alert_name: string;
    severity: string;
    source: string;
    target_resource: string;
    message: string;
    labels: string;
    annotations: string;
    status: string;
    hit_count: number;
    first_seen: number;
    last_seen: number;
    approval_id: string | null;
    acknowledged_by: string | null;
    acknowledged_at: number | null;
    resolved_by: string | null;
    resolved_at: number | null;
    reopen_count: Generated<number>;
  };
  /** Sources that beat (features/heartbeats), and the incident a missed beat opened. */
  heartbeats: {
    name: string;
    timeout_seconds: number;
    severity: string;
    namespace: string;
    status: string;
    last_beat_at: number;
    expires_at: number;
    incident_id: string | null;
  };
  incident_timeline: {
    seq: Generated<number>;
    incident_id: string;
    at: number;
    event: string;
    actor: string;
  };
  alerts: {
    seq: Generated<number>;
    alert_id: string;
    incident_id: string | null;
    fingerprint: string;
    origin: string;
    outcome: string;
    received_at: number;
    payload: string;
  };
  approvals: {
    seq: Generated<number>;
    id: string;
    incident_id: string | null;
    status: string;
    risk_level: string;
    action: string;
    description: string;
    requested_by: string;
    metadata: string;
    blast_radius: Generated<string>;
    dry_run_checks: Generated<string>;
    created_at: number;
    updated_at: number;
  };
  stream_entries: { stream: string; ms: number; seq: number; fields: string };
  stream_groups: { stream: string; group_name: string; last_ms: number; last_seq: number };
  stream_pending: {
    stream: string;
    group_name: string;
    ms: number;
    seq: number;
    consumer: string;
    delivered_at: number;
    deliveries: number;
  };
  signal_outcomes: {
    entry_id: string;
    outcome: string;
    incident_id: string | null;
    processed_at: number;
  };
  jobs: {
    id: string;
    name: string;
    payload: string;
    status: string;
    attempts_made: number;
    max_attempts: number;
    run_after: number;
    locked_until: number | null;
    last_error: string | null;
    created_at: number;
    updated_at: number;
  };
  /** One recorded stage of a delivery; what its stages share is in `external_event_fields`. */
  external_alert_events: {
    seq: Generated<number>;
    id: string;
    stage: string;
    provider: string;
    issue_id: string;
    /** Its `external_event_fields` row, written in the same transaction. */
    fields_key: string;
    /**
     * The key of its `event_payloads` row: the SHA-256 hex of the payload's JSON, or for a
     * signed delivery `mac-sha256:` and the SHA-256 hex of the body's HMAC (never checkable
     * without the secret, so no migration can recompute it)
     */
    payload_digest: string;
    operator_id: string | null;
    auth_method: string | null;
    approval_id: string | null;
    created_at: number;
  };
  /**
   * The fields a delivery's stages share, which the deliveries of one issue repeat (each with
   * a payload of its own), stored once: keyed by the SHA-256 hex of their JSON text (as
   * `external-event-records.ts` builds it), never updated or deleted.
   */
  external_event_fields: {
    key: string;
    project: string;
    title: string;
    severity: string;
    namespace: string;
    target_resource: string;
    fingerprint: string;
    source_url: string | null;
    labels: string;
    annotations: string;
  };
  event_payloads: { digest: string; body: string };
  anomaly_occurrences: { seq: Generated<number>; anomaly_key: string; occurred_at: number };
  approval_decisions: {
    seq: Generated<number>;
    approval_id: string;
    actor: string;
    /** `approve`, `reject`, or a status move such as `execute` */
    decision: string;
    /** `chat`, `api`, `auto-repair` */
    channel: string;
    from_status: string;
    to_status: string;
    created_at: number;
  };
  chat_cards: {
    nonce: string;
    approval_id: string;
    chat_id: string;
    message_id: number | null;
    text: string;
    expires_at: number;
    consumed_at: number | null;
    created_at: number;
    /** Sends begun: a second only for a send cut off before its end was recorded. */
    send_attempts: number;
    /** Why a card without a message id has none: `failed` or `waiting` (a 429); null: not known. */
    send_outcome: CardSendOutcome | null;
  };
  /** One per issue analysis job whose comment was posted, or is being posted. */
  tracker_comments: {
    job_id: string;
    issue_id: string;
    /** Posts begun: a second is made only when the first may not have reached the tracker. */
    attempts: number;
    posted_at: number | null;
    created_at: number;
  };
  settings: { key: string; value: string; updated_at: number };
  operation_log: {
    seq: Generated<number>;
    id: string;
    type: string;
    incident_id: string | null;
    approval_id: string | null;
    actor: string;
    action_detail: string;
    /** 1 or 0: SQLite has no boolean */
    success: number;
    error_message: string | null;
    context: string;
    created_at: number;
    prev_hash: string;
    hash: string;
  };
  analysis_tasks: {
    id: string;
    /** `manual` for POST /agents/analyze (spec) */
    trigger: string;
    incident_id: string | null;
    /** the analysis request as received (JSON) */
    request: string;
    /** PENDING, RUNNING, COMPLETED or FAILED (CONTRACT) */
    state: string;
    progress: number;
    current_step: string | null;
    agents_completed: number;
    total_agents: number;
    /** seq of the task's latest row in analysis_task_events; 0 before the first */
    last_event_seq: number;
    error: string | null;
    /** the consensus (JSON) once COMPLETED */
    result: string | null;
    created_at: number;
    started_at: number | null;
    completed_at: number | null;
    /** lease of the process running it; a RUNNING task past it was interrupted */
    locked_until: number | null;
  };
  analysis_task_events: { task_id: string; seq: number; data: string; created_at: number };
  /** Successful real playbook runs, kept with the operation log (features/repair). */
  playbook_run_counts: {
    playbook_id: string;
    real_successes: number;
  };
  /** Follow-up jobs committed with their record, relayed to the job queue (features/outbox). */
  outbox: {
    job_id: string;
    job_name: string;
    /** the job's payload (JSON) */
    payload: string;
    created_at: number;
    /** real time before which no relayer takes the row: a relayer's lease, or a retry's wait */
    relay_after: number;
    attempts: Generated<number>;
    last_error: string | null;
    /** when the queue last accepted the job; null before the first time */
    relayed_at: number | null;
    /** when the job reported its work done; until then the row is offered again */
    completed_at: number | null;
    /** set when the row was offered too often without completing (its last_error says why) */
    gave_up_at: number | null;
  };
  /** Alertmanager silences (features/silences), with what each one muted. */
  silences: {
    id: string;
    /** the matchers, `[{name, value, isRegex, isEqual}]` (JSON) */
    matchers: string;
    starts_at: number;
    ends_at: number;
    updated_at: number;
    created_by: string;
    comment: string;
    silenced_alerts: Generated<number>;
    /** the latest muted alerts, `[{alert_id, fingerprint, at}]` newest first (JSON) */
    recent_silenced: Generated<string>;
  };
}
