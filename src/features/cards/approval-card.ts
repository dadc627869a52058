import type { InlineKeyboard } from '../../ports/chat.js';
import { confidencePercent } from '../../support/confidence-percent.js';
import { ownValue } from '../../support/own-value.js';
import { formatInZone } from '../../support/zoned-time.js';
import { formatCallbackData } from './callback-data.js';
import type { ApprovalCardParams, CardMetrics } from './card-types.js';

/**
 * The approval card as plain text (no parse_mode): texts come from alerts and error
 * reports, so plain text needs no escaping and cannot break the message's markup, and the
 * cuts below count exactly the characters a reader sees.
 */

/** spec, Limits: "Card text cut: resource 50, root cause 100, action 50 characters". */
export const CARD_CUTS = Object.freeze({
  resource_name: 50,
  root_cause: 100,
  suggested_action: 50,
});

/**
 * The Bot API refuses texts over 4096 characters (UTF-16 units). Fields without a spec cut
 * (links, commands) are capped together here, in code points, low enough that astral
 * characters and the decided footer still fit.
 */
export const CARD_TEXT_MAX_CHARS = 2000;

/**
 * CONTRACT, Approval card: "Cut to N characters keeps the first N characters and appends
 * `…` when anything was cut". Characters are code points, so an emoji or a CJK character
 * counts once and a surrogate pair is never split.
 */
export function cutText(text: string, n: number): string {
  const chars = Array.from(text);
  return chars.length <= n ? text : `${chars.slice(0, n).join('')}…`;
}

/**
 * The root cause line's value. The cut applies to the root cause itself and the
 * `[x<hit_count>]` prefix comes outside the 100 characters (spec: "root_cause (cut to 100;
 * prefixed ... when hit_count is above 1)"), so a rising hit count never hides more text.
 */
export function rootCauseText(rootCause: string, hitCount: number | undefined): string {
  const cut = cutText(rootCause, CARD_CUTS.root_cause);
  return hitCount !== undefined && hitCount > 1 ? `[x${hitCount}] ${cut}` : cut;
}

const RISK_MARKS: Record<string, string> = {
  low: '🟢',
  medium: '🟡',
  high: '🟠',
  critical: '🔴',
};

export function renderApprovalCard(
  params: ApprovalCardParams,
  nonce: string,
): { text: string; keyboard: InlineKeyboard } {
  return { text: cardText(params), keyboard: cardKeyboard(params, nonce) };
}

/**
 * CONTRACT, Under races, crashes and abuse: `/card` for an approval that is no longer
 * `pending` sends a card without buttons that says its status, and who decided it when
 * someone did. The caller sends it without a keyboard.
 */
export function renderClosedCard(
  params: ApprovalCardParams,
  status: string,
  decided: { decision: string; actor: string; at: number } | null,
  timeZone: string,
): string {
  const text = cardText(params);
  const shown = decided
    ? renderDecidedCard(text, decided.decision, decided.actor, decided.at, timeZone)
    : text;
  return `${shown}\n\nStatus: ${status}`;
}

function cardText(params: ApprovalCardParams): string {
  const risk = params.risk_level.toLowerCase();
  const lines = [
    `${ownValue(RISK_MARKS, risk) ?? '⚪'} Approval required · risk ${risk.toUpperCase()}`,
    '',
    `Resource: ${cutText(params.resource_name, CARD_CUTS.resource_name)}`,
    // spec, Outgoing approval card: namespace "default `default`"
    `Namespace: ${params.namespace || 'default'}`,
    `Root cause: ${rootCauseText(params.root_cause, params.hit_count)}`,
    `Suggested action: ${cutText(params.suggested_action, CARD_CUTS.suggested_action)}`,
    `Estimated downtime: ${params.estimated_downtime}`,
    // spec: primary_responsibility "default COLLAB", confidence "default 0.0"
    `Responsibility: ${params.primary_responsibility || 'COLLAB'}`,
    `Confidence: ${confidencePercent(params.confidence ?? 0)}%`,
  ];
  const metrics = metricsLines(params.metrics);
  if (metrics.length > 0) lines.push('', '📊 Metrics', ...metrics);
  const ai = aiLine(params);
  if (ai) lines.push('', ai);
  const frequency = frequencyLine(params.anomaly_frequency);
  if (frequency) lines.push('', frequency);
  lines.push('', `Approval: ${params.approval_id}`);
  if (params.incident_id) lines.push(`Incident: ${params.incident_id}`);
  return cutText(lines.join('\n'), CARD_TEXT_MAX_CHARS);
}

/** CONTRACT, Chat callbacks: first row Approve, Reject; second row Details, Analyze when `incident_id` is non-empty. */
function cardKeyboard(params: ApprovalCardParams, nonce: string): InlineKeyboard {
  const id = params.approval_id;
  const keyboard: InlineKeyboard = [
    [
      { text: '✅ Approve', callback_data: formatCallbackData('approve', id, nonce) },
      { text: '❌ Reject', callback_data: formatCallbackData('reject', id, nonce) },
    ],
  ];
  if (params.incident_id) {
    keyboard.push([
      { text: '🔍 Details', callback_data: formatCallbackData('details', id, nonce) },
      { text: '🧠 Analyze', callback_data: formatCallbackData('analyze', id, nonce) },
    ]);
  }
  return keyboard;
}

/** Up to two decimals, without trailing zeros. */
function formatNumber(value: number): string {
  return String(Number(value.toFixed(2)));
}

const isNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

function withTrend(value: string, trend: string | undefined): string {
  return trend ? `${value} (${trend})` : value;
}

/** Only the metrics that were given; each line stands alone so a partial set still reads. */
function metricsLines(metrics: CardMetrics | undefined): string[] {
  if (!metrics) return [];
  const lines: string[] = [];
  if (isNumber(metrics.rps))
    lines.push(`Requests/s: ${withTrend(formatNumber(metrics.rps), metrics.rps_trend)}`);
  if (isNumber(metrics.error_rate))
    lines.push(`Error rate: ${formatNumber(metrics.error_rate * 100)}%`);
  if (isNumber(metrics.p99_latency_ms))
    lines.push(
      `p99 latency: ${withTrend(`${formatNumber(metrics.p99_latency_ms)} ms`, metrics.p99_trend)}`,
    );
  if (metrics.trace_link) lines.push(`Trace: ${metrics.trace_link}`);
  if (metrics.auto_tuning_command) lines.push(`Auto-tuning: ${metrics.auto_tuning_command}`);
  return lines;
}

function aiLine(params: ApprovalCardParams): string | null {
  const parts: string[] = [];
  if (isNumber(params.ai_tokens)) parts.push(`${Math.round(params.ai_tokens)} tokens`);
  if (isNumber(params.ai_cost)) parts.push(`$${Number(params.ai_cost.toFixed(4))}`);
  if (params.ai_provider) parts.push(params.ai_provider);
  return parts.length > 0 ? `🤖 AI: ${parts.join(' · ')}` : null;
}

const FREQUENCY_FIELDS: Array<[key: string, label: string]> = [
  ['count_1h', '1h'],
  ['count_24h', '24h'],
  ['count_7d', '7d'],
  ['count_30d', '30d'],
  ['auto_repair_count', 'auto-repairs'],
];

/** spec, Anomaly frequency: "A frequency block is shown ... only when count_24h is greater than 1". */
export function showsCardFrequency(frequency: ApprovalCardParams['anomaly_frequency']): boolean {
  return !!frequency && isNumber(frequency.count_24h) && frequency.count_24h > 1;
}

function frequencyLine(frequency: ApprovalCardParams['anomaly_frequency']): string | null {
  if (!frequency || !showsCardFrequency(frequency)) return null;
  const counts = FREQUENCY_FIELDS.filter(([key]) => isNumber(frequency[key])).map(
    ([key, label]) => `${label} ${frequency[key]}`,
  );
  const escalation = frequency.escalation_level;
  if (typeof escalation === 'string' && escalation) counts.push(`escalation ${escalation}`);
  return `🔁 Frequency: ${counts.join(' · ')}`;
}

const DECISION_MARKS: Record<string, string> = {
  approve: '✅ Approved',
  approved: '✅ Approved',
  reject: '❌ Rejected',
  rejected: '❌ Rejected',
  expired: '⌛ Expired',
};

/**
 * A decided card (CONTRACT, Chat callbacks: "a decided card loses its buttons ... and
 * shows who decided"): the card's text and a line with the decision, the actor and the time
 * in `timeZone` (DISPLAY_TZ). Approve/approved, reject/rejected and expired get a mark; any
 * other decision is shown as given. The caller sends it without a keyboard.
 */
export function renderDecidedCard(
  originalText: string,
  decision: string,
  actor: string,
  atMs: number,
  timeZone: string,
): string {
  const mark = ownValue(DECISION_MARKS, decision.toLowerCase()) ?? `ℹ️ ${decision}`;
  return `${originalText}\n\n${mark} by ${cutText(actor, 64)} · ${formatInZone(atMs, timeZone)}`;
}

/** The card that asks for the second of two signatures, naming the first signer. */
export function secondSignerCard(
  card: ApprovalCardParams,
  firstSigner: string,
): ApprovalCardParams {
  return {
    ...card,
    root_cause: `Second signature needed (signed by ${firstSigner}). ${card.root_cause}`,
  };
}
