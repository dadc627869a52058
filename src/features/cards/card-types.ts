/** The operation-log actor of every card push and digest. */
export const CHAT_GATEWAY_ACTOR = 'chat-gateway';

/** spec, Outgoing approval card: its parameters. */
export interface ApprovalCardParams {
  approval_id: string;
  /** lower-case */
  risk_level: string;
  resource_name: string;
  root_cause: string;
  suggested_action: string;
  estimated_downtime: string;
  /** COLLAB (default), FE or BE */
  primary_responsibility?: string;
  confidence?: number;
  namespace?: string;
  /** Above 1, the root cause is prefixed `[x<hit_count>]` (outside its 100-character cut). */
  hit_count?: number;
  /** Non-empty: the card gets a second row, Details and Analyze (CONTRACT, Chat callbacks). */
  incident_id?: string;
  metrics?: CardMetrics;
  ai_tokens?: number;
  /** In US dollars; shown with up to four decimals. */
  ai_cost?: number;
  ai_provider?: string;
  /** spec, Anomaly frequency fields; shown only when `count_24h` is greater than 1. */
  anomaly_frequency?: Record<string, unknown> | null;
}

/** spec: "requests per second and trend, error rate, p99 latency and trend, trace link, auto-tuning command". */
export interface CardMetrics {
  rps?: number;
  /** A word or arrow shown after the value, e.g. `rising` or `↑`. */
  rps_trend?: string;
  /** A fraction from 0 to 1, shown as a percentage. */
  error_rate?: number;
  p99_latency_ms?: number;
  p99_trend?: string;
  trace_link?: string;
  auto_tuning_command?: string;
}

export interface CardPushResult {
  sent: boolean;
  message_id?: number;
  nonce?: string;
  /** Why nothing was sent, e.g. no bot token. */
  reason?: string;
  /** The chat API's own answer to sendMessage, for the test push. */
  chat_response?: Record<string, unknown>;
}

/** An approval that is no longer pending, as a closed card shows it. */
export interface ClosedApproval {
  status: string;
  /** The decision that closed it and who made it; null when nobody did (it expired). */
  decided: { decision: string; actor: string; at: number } | null;
}

/** What became of a hit-count edit; `deferred`: cards wait or the chat asked to wait (429). */
export type HitCountEdit = 'edited' | 'unchanged' | 'deferred';

/** Sends approval cards and keeps them current. */
export interface CardSender {
  /**
   * Renders a card with a fresh nonce and sends it, or queues it while the chat asks to wait
   * (then `sent: false`; it goes out later, alone or summed up in a digest). Without a bot
   * token sends nothing.
   */
  push(card: ApprovalCardParams): Promise<CardPushResult>;
  /**
   * A card whose send was cut off (card-records.ts, cutOffCard) goes once more, with its own
   * nonce; `sent: false` when another caller already sent it again.
   */
  resendCutOff(card: { nonce: string; approval_id: string }): Promise<CardPushResult>;
  /**
   * An approval decided before its first card went out (CONTRACT, Under races, crashes and
   * abuse): its card, recorded and queued like push's, but without buttons and saying its
   * status and who decided it, as `/card` shows a decided approval.
   */
  pushClosed(card: ApprovalCardParams, closed: ClosedApproval): Promise<CardPushResult>;
  /** `/card <approval_id>`: like push, but first in the queue and never summed up. */
  pushOnRequest(card: ApprovalCardParams): Promise<CardPushResult>;
  /**
   * `/card <approval_id>` for an approval no longer pending: its card without buttons (so no
   * nonce, and no card record), saying its status and who decided it.
   */
  pushClosedOnRequest(card: ApprovalCardParams, closed: ClosedApproval): Promise<CardPushResult>;
  /**
   * CONTRACT, Access: a test card looks like a real one, but its nonce is recorded nowhere,
   * so its buttons are valid for no approval (a callback answers `Invalid nonce`).
   */
  pushTestCard(card: ApprovalCardParams): Promise<CardPushResult>;
  /** A converged alert: the approval's latest card shows the new hit count. */
  refreshHitCount(approvalId: string, hitCount: number): Promise<void>;
  /** The same edit, saying whether it was made or must be tried again later. */
  editHitCount(approvalId: string, hitCount: number): Promise<HitCountEdit>;
  /** Resolves once no new card waits to be sent (hit-count edits never go ahead of one). */
  idle(): Promise<void>;
  /** At shutdown: cards still waiting are given up (their rows stay for `/card`). */
  close(): void;
  /**
   * A decided approval: its cards lose their buttons and say who decided, and when (`at`,
   * now by default). A card already showing that very decision is left as it is.
   */
  markDecided(approvalId: string, decision: string, actor: string, at?: number): Promise<void>;
}
