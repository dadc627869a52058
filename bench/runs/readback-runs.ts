import crypto from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { redactDocument } from '../../src/features/readbacks/redaction.js';
import { startBenchScript } from '../lib/bare.js';
import type { SampleResponse } from '../lib/load.js';
import type { Comparison, RunSpec } from '../lib/run-spec.js';
import { startService } from '../lib/service.js';
import type { Target } from '../lib/target.js';
import type { BenchContext } from './intake-runs.js';

/** A committed, redacted readback (bench/README.md, Runs: readback-embedded): served from the service's cache. */
export const BENCH_READBACK = 'agent-report-status-board';
const READBACK_PATH = `/api/v1/agents/${BENCH_READBACK}`;

/** About 200 KB of status rows, a third of them with private hosts and addresses to redact. */
export function benchDocument(): Record<string, unknown> {
  const items = Array.from({ length: 1000 }, (_, i) => ({
    id: `item-${String(i).padStart(4, '0')}`,
    label: `Report job ${i}: nightly status export`,
    status: i % 7 === 0 ? 'action_required' : 'ready',
    host: i % 3 === 0 ? `worker-${i}.ops.internal` : `edge-${i}.example.com`,
    address: i % 3 === 0 ? `10.42.${i % 250}.${(i * 7) % 250}:9100` : `203.0.113.${i % 250}`,
    last_run: new Date(Date.UTC(2026, 10, 20, 0, i % 60)).toISOString(),
    evidence_refs: [`ticket:OPS-${1000 + i}`],
  }));
  return {
    schema_version: 'agent_report_status_board_v1',
    generated_at: '2026-11-20T09:30:00+08:00',
    summary: { items: items.length },
    items,
  };
}

function writeDocument(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${BENCH_READBACK}.json`);
  writeFileSync(file, JSON.stringify(benchDocument(), null, 2));
  return file;
}

const expected = Buffer.from(JSON.stringify(redactDocument(benchDocument())));
const expectedSha = crypto.createHash('sha256').update(expected).digest('hex');

function sameBytes(sample: SampleResponse): string | undefined {
  const sha = crypto.createHash('sha256').update(sample.body).digest('hex');
  return sha === expectedSha
    ? undefined
    : `answered ${sample.body.length} bytes that differ from the redacted document (${expected.length} bytes)`;
}

function startReadbackBare(workDir: string): Promise<Target> {
  return startBenchScript('readback-bare', 'bench/runs/readback-bare-server.ts', {
    READBACK_FILE: writeDocument(workDir),
  });
}

const plan = {
  method: 'GET' as const,
  path: READBACK_PATH,
  source: { kind: 'rotate' as const, requests: [{ body: '', headers: {} }] },
};

/**
 * `readback-embedded`: the service serving the committed document (stat, cache hit, cached
 * redacted bytes and ETag). `readback-bare`: node:http sending the same bytes.
 */
export function readbackRuns(ctx: BenchContext): RunSpec[] {
  return [
    {
      id: 'readback-bare',
      label: `bare node:http, the same ${Math.round(expected.length / 1024)} KB redacted readback`,
      start: async () => startReadbackBare(await ctx.workDir('readback-bare')),
      plan,
      checkSample: sameBytes,
    },
    {
      id: 'readback-embedded',
      label: `GET ${BENCH_READBACK} (${Math.round(expected.length / 1024)} KB committed, redacted)`,
      start: async () => {
        const workDir = await ctx.workDir('readback-embedded');
        writeDocument(path.join(workDir, 'readbacks'));
        return startService({
          mode: { kind: 'embedded' },
          workDir,
          secret: ctx.secret,
          cpuProfileDir: ctx.cpuProfileDir('readback-embedded'),
        });
      },
      plan,
      checkSample: sameBytes,
      cpuProfileDir: ctx.cpuProfileDir('readback-embedded'),
    },
  ];
}

export const readbackComparisons: Comparison[] = [
  {
    label: 'redacted readback ÷ bare (same bytes)',
    numerator: 'readback-embedded',
    denominator: 'readback-bare',
    target: 0.7,
  },
];
