import path from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { analyzeIssue } from '../../src/features/errtracker/analyze-issue.js';
import { ANALYZE_ISSUE_JOB } from '../../src/features/errtracker/issue-analysis-job.js';
import type { AnalyzeIssueJob } from '../../src/features/errtracker/issue-analysis-payload.js';
import { UPSTREAM_RETRY } from '../../src/support/upstream-retry.js';
import { tempDir } from '../helpers/backends.js';
import { backends, buildTestApp, TestClock } from '../helpers/build-app.js';
import { followUpJobs } from '../helpers/follow-up-jobs.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startUpstream, type Upstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';
import { deliver, issueAlert, trackerSignature } from './tracker-delivery.js';

/**
 * CONTRACT, Under races, crashes and abuse: "An error-tracker comment and a chat card are
 * each sent once per issue or approval across retries and `kill -9` (a send cut off
 * mid-flight may be repeated once at most ...)". The tracker's comment API cannot say
 * whether a comment cut off mid-flight landed, so that one is posted once more at most.
 */

const commentsOn = (tracker: Upstream, issueId: string) =>
  tracker.requests.filter((r) => r.url === `/api/0/issues/${issueId}/comments/`);

describe.each(backends())('a tracker analysis run again on %s', (backend) => {
  it('does not post a second comment once the first was posted', async () => {
    const tracker = await startUpstream(() => ({ status: 201, body: { id: 'c1' } }));
    const { app } = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', ERRTRACKER_API_BASE: tracker.url },
    });
    const issueId = `comment-once-${backend}`;
    expect((await deliver(app, issueAlert(issueId))).json()).toMatchObject({
      status: 'accepted',
    });
    const row = await firstRunCompleted(app, issueId);
    expect(commentsOn(tracker, issueId)).toHaveLength(1);

    // The job's handler once more, as a retry runs it.
    await analyzeIssue(
      app.services,
      createCardSender(app.services),
      row.payload as AnalyzeIssueJob,
    );
    expect(commentsOn(tracker, issueId)).toHaveLength(1);
  });
});

describe.each(backends())('a tracker comment refused on %s', (backend) => {
  it('does not use up the one repeat: refused in two runs, posted once by the third', async () => {
    // Every post of the first two runs (each with its in-process retries) gets a 500: the
    // tracker took none of them. Any later post is taken.
    const refusedPosts = 2 * UPSTREAM_RETRY.attempts;
    const issueId = `comment-refused-${backend}`;
    const tracker = await startUpstream((request) =>
      commentsOn(tracker, issueId).indexOf(request) < refusedPosts
        ? { status: 500, body: { detail: 'tracker down' } }
        : { status: 201, body: { id: 'c1' } },
    );
    const { app } = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', ERRTRACKER_API_BASE: tracker.url },
    });
    expect((await deliver(app, issueAlert(issueId))).json()).toMatchObject({
      status: 'accepted',
    });
    const row = await firstRunCompleted(app, issueId);
    expect(commentsOn(tracker, issueId)).toHaveLength(UPSTREAM_RETRY.attempts);
    // The job's handler again, as retries run it: the second is refused too, the third posts.
    const runAgain = () =>
      analyzeIssue(app.services, createCardSender(app.services), row.payload as AnalyzeIssueJob);
    await runAgain();
    expect(commentsOn(tracker, issueId)).toHaveLength(refusedPosts);
    await runAgain();
    expect(commentsOn(tracker, issueId)).toHaveLength(refusedPosts + 1);
    // Posted: no later run posts it again.
    await runAgain();
    expect(commentsOn(tracker, issueId)).toHaveLength(refusedPosts + 1);
  }, 60_000);
});

describe('a tracker comment cut off by kill -9', () => {
  /** The dead process's lease on its job runs out now rather than in 20 s. */
  function leaseRunsOut(dataDir: string) {
    const db = new Database(path.join(dataDir, 'app.db'));
    try {
      db.prepare('update jobs set locked_until = 0 where locked_until is not null').run();
    } finally {
      db.close();
    }
  }

  it('is posted once more at most, however often the process dies mid-post', async () => {
    // The first two posts are held (the process dies while the tracker takes them); the
    // tracker answers any later one.
    const tracker = await startUpstream((request) =>
      commentsOn(tracker, 'kill-mid-comment').indexOf(request) < 2
        ? new Promise(() => {})
        : { status: 201, body: { id: 'c1' } },
    );
    const dataDir = tempDir();
    const env = {
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      APP_ENV: 'test',
      SIGNAL_CONSUMER: 'false',
      ERRTRACKER_CLIENT_SECRET: 's3cret',
      ERRTRACKER_API_BASE: tracker.url,
    };
    const first = await startServerProcess(env);
    const body = JSON.stringify(issueAlert('kill-mid-comment'));
    const response = await fetch(`${first.url}/api/v1/webhooks/errtracker/error`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'errtracker-hook-signature': trackerSignature('s3cret', body),
      },
      body,
    });
    expect(await response.json()).toMatchObject({ status: 'accepted' });

    for (const posts of [1, 2]) {
      const { child } = posts === 1 ? first : await startServerProcess(env);
      await waitFor(
        async () => (commentsOn(tracker, 'kill-mid-comment').length >= posts ? true : undefined),
        { what: `comment post ${posts}`, timeoutMs: 15_000 },
      );
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      leaseRunsOut(dataDir);
    }

    const later = new TestClock(Date.now() + 5 * 60 * 1000);
    const { app } = await buildTestApp({
      env: { ...env, LOG_LEVEL: 'silent', PORT: '8080' },
      clock: later,
    });
    await waitFor(
      async () => ((await analysisJobOf(app, 'kill-mid-comment'))?.completed ? true : undefined),
      { what: 'the analysis completing after the restarts', timeoutMs: 15_000 },
    );
    expect(commentsOn(tracker, 'kill-mid-comment')).toHaveLength(2);
  });
});

/** The tracker issue's analysis job, wherever the queue records it. */
async function analysisJobOf(app: FastifyInstance, issueId: string) {
  const jobs = await followUpJobs(app, ANALYZE_ISSUE_JOB.name);
  return jobs.find((job) => job.id.startsWith(`errtracker-${issueId}-`));
}

/** The tracker issue's analysis job once its first run completed, with its payload. */
function firstRunCompleted(app: FastifyInstance, issueId: string) {
  return waitFor(
    async () => {
      const job = await analysisJobOf(app, issueId);
      return job?.completed ? job : undefined;
    },
    { what: 'the first analysis run completing', timeoutMs: 20_000 },
  );
}
