import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** One statement shape as `statement-times.cjs` counted it over the service's whole life. */
export interface StatementTime {
  text: string;
  calls: number;
  /** SQLite: time spent running it on the service's thread. PostgreSQL: 0 (a round trip). */
  ms: number;
  /** PostgreSQL: bytes of query text and parameters sent. SQLite: 0. */
  bytes: number;
}

export interface StatementTimes {
  /** Requests the service answered while it was counted (sample, warm-up and measured). */
  requests?: number;
  totalMs: number;
  totalCalls: number;
  totalBytes: number;
  top: StatementTime[];
}

const SHOWN = 12;

/** What the preload wrote for `pid` in `dir`, heaviest first (by time, else by bytes sent). */
export async function readStatementTimes(
  dir: string,
  pid: number,
  requests?: number,
): Promise<StatementTimes | undefined> {
  const file = path.join(dir, `statements.${pid}.json`);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const all = JSON.parse(text) as StatementTime[];
  all.sort((a, b) => b.ms - a.ms || b.bytes - a.bytes || b.calls - a.calls);
  return {
    requests,
    totalMs: all.reduce((sum, s) => sum + s.ms, 0),
    totalCalls: all.reduce((sum, s) => sum + s.calls, 0),
    totalBytes: all.reduce((sum, s) => sum + s.bytes, 0),
    top: all.slice(0, SHOWN),
  };
}

/** The table's header and rows: per request (µs) when the request count is known, else totals (ms). */
export function statementTable(times: StatementTimes): { header: string[]; rows: string[][] } {
  const { requests } = times;
  const header = requests
    ? ['statement', 'calls/req', 'µs/req', 'bytes sent/req']
    : ['statement', 'calls', 'ms', 'bytes sent'];
  const rows = times.top.map((s) => [
    s.text.length > 90 ? `${s.text.slice(0, 89)}…` : s.text,
    requests ? (s.calls / requests).toFixed(3) : String(s.calls),
    requests ? ((s.ms * 1000) / requests).toFixed(2) : s.ms.toFixed(0),
    requests ? (s.bytes / requests).toFixed(0) : String(s.bytes),
  ]);
  return { header, rows };
}
