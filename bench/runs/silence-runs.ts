import { convergedAlertRequest } from '../lib/bodies.js';
import type { Comparison, RunSpec } from '../lib/run-spec.js';
import { startService } from '../lib/service.js';
import type { Target } from '../lib/target.js';
import type { BenchContext } from './intake-runs.js';

const ALERTS_PATH = '/api/v1/webhooks/alerts';
const SILENCES_PATH = '/api/v1/alertmanager/api/v2/silences';
/** CONTRACT, Silences: "1,000 active silences cost a converged alert no more than a fifth". */
const SILENCE_COUNT = 1000;
/** One silence in ten names no label exactly (regexes only): each alert is judged by those. */
const REGEX_ONLY_EVERY = 10;

function silenceBody(index: number) {
  const now = Date.now();
  const matchers =
    index % REGEX_ONLY_EVERY === 0
      ? [
          { name: 'namespace', value: `team-${index}-.*`, isRegex: true, isEqual: true },
          { name: 'severity', value: 'crit.*', isRegex: true, isEqual: true },
        ]
      : [
          { name: 'alertname', value: `BenchSilence${index}`, isRegex: false, isEqual: true },
          { name: 'pod', value: `api-${index}-.*`, isRegex: true, isEqual: true },
        ];
  return {
    matchers,
    startsAt: new Date(now).toISOString(),
    endsAt: new Date(now + 24 * 60 * 60 * 1000).toISOString(),
    createdBy: 'bench',
    comment: 'matches none of the bench alerts',
  };
}

/** Creates the silences through the API, 20 at a time (the read API is open in staging). */
async function addSilences(target: Target): Promise<void> {
  const indexes = Array.from({ length: SILENCE_COUNT }, (_unused, index) => index);
  for (let at = 0; at < indexes.length; at += 20) {
    await Promise.all(
      indexes.slice(at, at + 20).map(async (index) => {
        const response = await fetch(`${target.baseUrl}${SILENCES_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(silenceBody(index)),
        });
        if (!response.ok) throw new Error(`silence ${index}: ${response.status}`);
      }),
    );
  }
}

/** The converged run of intake-runs.ts, on a service holding 1,000 silences none of which match. */
export function silenceRuns(ctx: BenchContext): RunSpec[] {
  const id = 'converged-silences-embedded';
  return [
    {
      id,
      label: `alerts converged, embedded SQLite, ${SILENCE_COUNT} active silences (none matching)`,
      start: async () => {
        const target = await startService({
          mode: { kind: 'embedded' },
          workDir: await ctx.workDir(id),
          secret: ctx.secret,
          cpuProfileDir: ctx.cpuProfileDir(id),
        });
        await addSilences(target);
        return target;
      },
      plan: {
        method: 'POST',
        path: ALERTS_PATH,
        source: { kind: 'rotate', requests: [convergedAlertRequest(ctx.secret)] },
      },
      // Created, not silenced: no silence matches the bench alert.
      checkSample: (sample) =>
        sample.body.includes('"status":"created"') ? undefined : `sample answered ${sample.body}`,
      cpuProfileDir: ctx.cpuProfileDir(id),
    },
  ];
}

export const silenceComparisons: Comparison[] = [
  {
    label: `converged with ${SILENCE_COUNT} silences ÷ converged with none (embedded)`,
    numerator: 'converged-silences-embedded',
    denominator: 'converged-embedded',
    target: 0.8,
  },
];
