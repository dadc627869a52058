import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startBareServer } from '../lib/bare.js';
import { distributedNames } from '../lib/distributed.js';
import type { SampleResponse } from '../lib/load.js';
import type { Comparison, RunSpec } from '../lib/run-spec.js';
import { REPO_ROOT, type StoreMode, startService } from '../lib/service.js';
import type { SignedRequest } from '../lib/signing.js';
import type { BenchContext } from './intake-runs.js';

const TRACKER_PATH = '/api/v1/webhooks/errtracker/error';

/** The tracker's published issue-alert example, as the tests use it, for one fixed issue. */
function trackerDelivery(secret: string): SignedRequest {
  const fixture = path.join(REPO_ROOT, 'test/fixtures/errtracker/issue-alert-triggered.json');
  const payload = JSON.parse(readFileSync(fixture, 'utf8')) as {
    data: { event: Record<string, unknown> };
  };
  payload.data.event.issue_id = 'bench-dedup-issue';
  const body = JSON.stringify(payload);
  // Independent of src/: lower-case hex HMAC-SHA256 of the raw body (CONTRACT).
  const signature = crypto.createHmac('sha256', secret).update(body).digest('hex');
  return {
    body,
    headers: { 'content-type': 'application/json', 'errtracker-hook-signature': signature },
  };
}

function statusIs(expected: string) {
  return (sample: SampleResponse) => {
    const status = (JSON.parse(sample.body) as { status?: string }).status;
    return status === expected
      ? undefined
      : `sample answered status=${status}, expected ${expected}`;
  };
}

/**
 * The error-tracker webhook's de-duplicated path: the sample request is the one `accepted`
 * delivery, and everything after it falls in the 600 s window. Its baseline, `bare-tracker`,
 * is the bare server doing the same signature check and JSON.parse on the same body (the
 * 8.6 KB fixture, about 4.9 KB as sent).
 */
export function errtrackerRuns(ctx: BenchContext): RunSpec[] {
  const bareTracker: RunSpec = {
    id: 'bare-tracker',
    label: 'bare node:http baseline (error-tracker body)',
    start: () => startBareServer(ctx.secret),
    plan: {
      method: 'POST',
      path: TRACKER_PATH,
      source: { kind: 'rotate', requests: [trackerDelivery(ctx.secret)] },
    },
    checkSample: (sample) =>
      sample.body === '{"success":true}' ? undefined : `sample answered ${sample.body}`,
  };
  const services = (['embedded', 'distributed'] as const).map((modeKey): RunSpec => {
    const id = `errtracker-dedup-${modeKey}`;
    return {
      id,
      label: `errtracker deduplicated, ${modeKey === 'embedded' ? 'embedded SQLite' : 'PostgreSQL + Redis'}`,
      skip: modeKey === 'distributed' ? ctx.distributedUnavailable : undefined,
      start: async () => {
        const mode: StoreMode =
          modeKey === 'embedded'
            ? { kind: 'embedded' }
            : { kind: 'distributed', ...distributedNames(ctx.tag, 'errtracker-dedup') };
        return startService({
          mode,
          workDir: await ctx.workDir(id),
          secret: ctx.secret,
          cpuProfileDir: ctx.cpuProfileDir(id),
        });
      },
      plan: {
        method: 'POST',
        path: TRACKER_PATH,
        source: { kind: 'rotate', requests: [trackerDelivery(ctx.secret)] },
      },
      checkSample: statusIs('accepted'),
      cpuProfileDir: ctx.cpuProfileDir(id),
    };
  });
  return [bareTracker, ...services];
}

export const errtrackerComparisons: Comparison[] = [
  {
    label: 'errtracker dedup ÷ bare-tracker (embedded)',
    numerator: 'errtracker-dedup-embedded',
    denominator: 'bare-tracker',
    target: 0.45,
  },
  {
    label: 'errtracker dedup ÷ bare-tracker (distributed)',
    numerator: 'errtracker-dedup-distributed',
    denominator: 'bare-tracker',
    target: 0.45,
  },
];
