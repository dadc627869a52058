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
  let all: StatementTime[];
  try {
    all = JSON.parse(await readFile(file, 'utf8')) as StatementTime[];
  } catch {
    // Not written (killed before its exit handler), or cut short: the profile stands alone.
    return undefined;
  }
  all.sort((a, b) => b.ms - a.ms || b.bytes - a.bytes || b.calls - a.calls);
  return {
    requests,
    totalMs: all.reduce((sum, s) => sum + s.ms, 0),
    totalCalls: all.reduce((sum, s) => sum + s.calls, 0),
    totalBytes: all.reduce((sum, s) => sum + s.bytes, 0),
    top: all.slice(0, SHOWN),
  };
}

/**
 * The table's header and rows: per request (µs) when the request count is known, else totals
 * (ms). SQLite's statements have a time and PostgreSQL's a size, so only that column shows.
 */
export function statementTable(times: StatementTimes): { header: string[]; rows: string[][] } {
  const { requests } = times;
  const onPostgres = times.totalBytes > 0;
  const header = [
    'statement',
    requests ? 'calls/req' : 'calls',
    onPostgres ? `bytes sent${requests ? '/req' : ''}` : requests ? 'µs/req' : 'ms',
  ];
  const rows = times.top.map((s) => {
    const cost = onPostgres ? s.bytes : requests ? s.ms * 1000 : s.ms;
    return [
      s.text.length > 110 ? `${s.text.slice(0, 60)} … ${s.text.slice(-45)}` : s.text,
      requests ? (s.calls / requests).toFixed(3) : String(s.calls),
      requests ? (cost / requests).toFixed(onPostgres ? 0 : 2) : cost.toFixed(0),
    ];
  });
  return { header, rows };
}
