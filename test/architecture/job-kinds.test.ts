import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * docs/architecture.md, Jobs: a job kind's name, payload and id are declared once beside its
 * worker (`jobKind`, src/features/outbox/job-kind.ts); workers register through
 * `processJobs` and writers commit through the follow-up writer (`Services.followUps`). Only
 * the outbox itself writes outbox rows or registers workers by name.
 */
const BY_NAME = [
  /\bjobs\.process\(/,
  /\btypedJob\(/,
  /\baddFollowUpJobs?\(/,
  /\binsertOutboxJobs\(/,
  /\bjobs\.enqueue\(\s*['"`]/,
];

function jobsBuiltByHand(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      BY_NAME.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
    );
}

describe('job kinds are declared once and committed one way', () => {
  it('has no feature outside the outbox register, write or enqueue a job by its name', () => {
    const found = sourceFiles('src/features')
      .filter((file) => !file.startsWith('src/features/outbox/'))
      .flatMap((file) =>
        jobsBuiltByHand(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')),
      );
    expect(found, found.join('\n')).toEqual([]);
  });

  it('finds a worker registered by hand and a job written past the follow-up writer', () => {
    const text = [
      "services.jobs.process('x.run', typedJob('x.run', Payload, log, work), 4);",
      'await addFollowUpJob(tx, job, now);',
      'processJobs(services, X_JOB, work, 4);',
      'await services.followUps.add(tx, [jobOf(X_JOB, payload)], now);',
    ].join('\n');
    expect(jobsBuiltByHand('a.ts', text).map((line) => line.split(':')[1])).toEqual(['1', '2']);
  });
});
