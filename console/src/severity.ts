/**
 * Incident severities and the urgency order of the Now view (CONTRACT, Alert webhook: `P0`-`P3`,
 * `critical` is P1, `warning` P2, `info` P3). Free of the DOM so that Node tests the order.
 */

/** The severities, most urgent first: every severity filter lists them in this order. */
export const SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function isSeverity(value: string | null | undefined): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value ?? '');
}

/** Older records and outside words keep their place: `critical` ranks with P1, `info` with P3. */
const RANK: Record<string, number> = {
  P0: 0,
  P1: 1,
  critical: 1,
  high: 1,
  P2: 2,
  warning: 2,
  medium: 2,
  P3: 3,
  info: 3,
  low: 3,
};

/** 0 for P0 to 3 for P3; anything unknown after them. */
export function severityRank(severity: string): number {
  return RANK[severity] ?? SEVERITIES.length;
}

/** An approval's risk comes from its incident's severity (P0 critical … P3 low). */
const RISK_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 };

export function riskRank(risk: string): number {
  return RISK_RANK[risk] ?? SEVERITIES.length;
}

interface Ranked {
  id: string;
  severity: string;
  last_seen: string;
}

const byId = (a: Ranked, b: Ranked) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const newestSeen = (a: Ranked, b: Ranked) =>
  (Date.parse(b.last_seen) || 0) - (Date.parse(a.last_seen) || 0);

/** The service's `order=urgency`: severity (P0 first), then last seen (newest first), then id. */
export function byUrgency(a: Ranked, b: Ranked): number {
  return severityRank(a.severity) - severityRank(b.severity) || newestSeen(a, b) || byId(a, b);
}

/**
 * `rows` sorted by urgency, each time stamp read once: a storm's redraw sorts hundreds of rows,
 * and parsing dates in every comparison would cost more than the sort.
 */
export function sortedByUrgency<T extends Ranked>(rows: Iterable<T>): T[] {
  const keyed = [...rows].map((row) => ({
    row,
    rank: severityRank(row.severity),
    seen: Date.parse(row.last_seen) || 0,
  }));
  keyed.sort(
    (a, b) =>
      a.rank - b.rank ||
      b.seen - a.seen ||
      (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0),
  );
  return keyed.map((item) => item.row);
}
