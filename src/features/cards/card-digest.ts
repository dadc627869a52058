import type { Config } from '../../config.js';
import { cutText } from './approval-card.js';

/**
 * The digest that replaces approval cards waiting out the chat's flood control (CONTRACT,
 * Chat under storms): `<n> new incidents`, up to ten lines (severity, alert name, namespace,
 * hit count), most severe first, and the console's address. Plain text, like the card.
 */

export interface DigestLine {
  severity: string;
  alertName: string;
  namespace: string;
  hitCount: number;
}

/** CONTRACT, Chat under storms: "up to 10 lines". */
export const DIGEST_MAX_LINES = 10;

/** An alert name is free text from the sender; ten long ones must not outgrow one message. */
const ALERT_NAME_MAX_CHARS = 80;

/**
 * Incident severities P0-P3 and approval risks (a tracker issue has no incident) on one
 * scale: riskForSeverity maps P0-P3 one to one onto critical-low, so both orders agree.
 */
const SEVERITY_RANKS: ReadonlyMap<string, number> = new Map([
  ['P0', 0],
  ['critical', 0],
  ['P1', 1],
  ['high', 1],
  ['P2', 2],
  ['medium', 2],
  ['P3', 3],
  ['low', 3],
]);

/** 0 is the most severe; anything unknown comes last. */
export function severityRank(severity: string): number {
  return SEVERITY_RANKS.get(severity) ?? SEVERITY_RANKS.size;
}

/** Most severe first, then the most hits; the sort is stable, so arrival order breaks ties. */
export function mostSevereFirst<T>(
  items: readonly T[],
  severityOf: (item: T) => string,
  hitCountOf: (item: T) => number,
): T[] {
  return [...items].sort(
    (a, b) =>
      severityRank(severityOf(a)) - severityRank(severityOf(b)) || hitCountOf(b) - hitCountOf(a),
  );
}

const SEVERITY_MARKS = ['🔴', '🟠', '🟡', '🟢'];

/** `count` is every card the digest replaces, however many lines it shows. */
export function renderCardDigest(
  count: number,
  lines: readonly DigestLine[],
  consoleUrl: string,
): string {
  const shown = mostSevereFirst(
    lines,
    (line) => line.severity,
    (line) => line.hitCount,
  ).slice(0, DIGEST_MAX_LINES);
  const text = [
    `${count} new incidents`,
    ...shown.map(
      (line) =>
        `${SEVERITY_MARKS[severityRank(line.severity)] ?? '⚪'} ${line.severity} · ` +
        `${cutText(line.alertName, ALERT_NAME_MAX_CHARS)} · ${line.namespace || 'default'} · ` +
        `x${line.hitCount}`,
    ),
  ];
  if (count > shown.length) text.push(`… and ${count - shown.length} more`);
  text.push(
    '',
    `Decide in the console: ${consoleUrl}`,
    'or send /card <approval_id> for one approval card.',
  );
  return text.join('\n');
}

/**
 * CONTRACT, Chat under storms: the console's address is `PUBLIC_URL` (default
 * `http://<HOST>:<PORT>`) plus `/console/`.
 */
export function consoleAddress(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  if (config.publicUrl) return `${config.publicUrl}/console/`;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}/console/`;
}
