/** What an approval card shows (spec, Outgoing approval card). */
export interface ApprovalCard {
  approval_id: string;
  risk_level: string;
  resource_name: string;
  root_cause: string;
  suggested_action: string;
  estimated_downtime: string;
  primary_responsibility?: string;
  confidence?: number;
  namespace?: string;
  hit_count?: number;
  incident_id?: string;
  ai_tokens?: number;
  ai_cost?: number;
  ai_provider?: string;
  anomaly_frequency?: Record<string, unknown> | null;
  metrics?: Record<string, unknown>;
}

export interface ChatPushResult {
  sent: boolean;
  message_id?: number;
  /** Why nothing was sent (no bot token configured). */
  reason?: string;
}

/** The chat gateway that approval cards go to. */
export interface ChatPort {
  readonly configured: boolean;
  pushApprovalCard(card: ApprovalCard): Promise<ChatPushResult>;
}
