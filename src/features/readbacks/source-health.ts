import fs from 'node:fs';
import type { Db } from '../../ports/store.js';
import { countApprovalsSince } from '../approvals/approval-records.js';
import { countExternalEventsSince } from '../errtracker/external-event-reads.js';
import { countAlertsSince } from '../incidents/alert-records.js';
import { countIncidentsSince } from '../incidents/incident-counts.js';
import { SIGNALS_STREAM } from '../intake/signal-schema.js';
import { countOperationsSince } from '../oplog/operation-reads.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { DocumentReader } from './document-shape.js';

/**
 * spec, Readbacks: live, agent-report-source-health: "report data-source health, all-zero
 * interpretation, no-send preview". The sources are the service's own: database, signal
 * stream, operation log, committed readback folder, playbooks, chat gateway (configured or
 * not; never called). A report whose numbers are all zero is only trustworthy when every
 * source answered, which is what the interpretation says. The preview is never sent.
 */
export const SOURCE_HEALTH = 'agent-report-source-health';

/** What the report counts in its window, each by its table's records module. */
const WINDOW_COUNTS: ReadonlyArray<readonly [string, (db: Db, since: number) => Promise<number>]> =
  [
    ['alerts', countAlertsSince],
    ['incidents', countIncidentsSince],
    ['approvals', countApprovalsSince],
    ['operations', countOperationsSince],
    ['tracker_events', countExternalEventsSince],
  ];

export interface SourceCheck {
  source: string;
  status: 'ok' | 'unavailable' | 'not_configured';
  detail: string;
}

async function check(source: string, probe: () => Promise<string>): Promise<SourceCheck> {
  try {
    return { source, status: 'ok', detail: await probe() };
  } catch (error) {
    return { source, status: 'unavailable', detail: `${(error as Error).name}: check failed` };
  }
}

/** Pure: what zeros mean given which sources answered. */
export function interpretZeros(
  counts: Record<string, number>,
  sources: readonly SourceCheck[],
  windowHours: number,
) {
  const allZero = Object.values(counts).every((n) => n === 0);
  const down = sources.filter((s) => s.status === 'unavailable').map((s) => s.source);
  if (!allZero)
    return {
      all_zero: false,
      verdict: 'activity_present',
      explanation: `Activity recorded in the last ${windowHours} h.`,
    };
  if (down.length === 0) {
    return {
      all_zero: true,
      verdict: 'quiet_window',
      explanation: `Nothing happened in the last ${windowHours} h and every source answered: the zeros are real, not a broken pipeline.`,
    };
  }
  return {
    all_zero: true,
    verdict: 'zeros_untrusted',
    explanation: `Every count is zero but ${down.join(', ')} did not answer: the zeros may hide a broken source.`,
  };
}

export async function sourceHealth(ctx: ReadbackContext) {
  const committed = optionalInput(ctx, SOURCE_HEALTH);
  const read = new DocumentReader(SOURCE_HEALTH);
  const settings = committed?.document ?? {};
  const windowHours = read.number(settings, 'window_hours', 24);
  if (windowHours <= 0 || windowHours > 24 * 30) read.fail('"window_hours" must be from 1 to 720');
  const title = read.optionalText(settings, 'report_title') ?? 'Agent operations daily report';
  const { store, stream, chat } = ctx.services;
  const since = ctx.now() - windowHours * 3600 * 1000;
  const sources: SourceCheck[] = await Promise.all([
    check('database', async () => {
      const started = performance.now();
      await store.ping();
      return `answered in ${Math.round(performance.now() - started)} ms`;
    }),
    check('signal_stream', async () => `${await stream.length(SIGNALS_STREAM)} entries`),
    check(
      'operation_log',
      async () => `${await countOperationsSince(store.db, since)} entries in the window`,
    ),
    check('readback_dir', async () => {
      const files = fs.readdirSync(ctx.files.dir).filter((file) => file.endsWith('.json'));
      return `${files.length} committed documents`;
    }),
    check('playbooks', async () => `${ctx.playbooks.length} playbooks loaded`),
  ]);
  sources.push({
    source: 'chat_gateway',
    status: chat.configured ? 'ok' : 'not_configured',
    detail: chat.configured ? 'configured; not called by this readback' : 'no bot token',
  });
  const counts: Record<string, number> = {};
  for (const [name, countSince] of WINDOW_COUNTS) {
    try {
      counts[name] = await countSince(store.db, since);
    } catch {
      counts[name] = 0;
    }
  }
  const interpretation = interpretZeros(counts, sources, windowHours);
  const lines = [
    `${title} (last ${windowHours} h)`,
    ...Object.entries(counts).map(([name, n]) => `${name}: ${n}`),
    `sources: ${sources.map((s) => `${s.source} ${s.status}`).join(', ')}`,
    interpretation.explanation,
  ];
  return {
    schema_version: 'agent_report_source_health_v1',
    generated_at: new Date(ctx.now()).toISOString(),
    status: sources.some((s) => s.status === 'unavailable') ? 'degraded' : 'healthy',
    window_hours: windowHours,
    sources,
    counts,
    all_zero_interpretation: interpretation,
    report_preview: {
      sent: false,
      channel: 'chat',
      reason: 'preview only: a readback sends no chat message',
      text: lines.join('\n'),
    },
  };
}
