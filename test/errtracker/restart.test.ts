import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { buildTestApp, TestClock } from '../helpers/build-app.js';
import { chatCompletion, startUpstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';
import { issueAlert, trackerSignature } from './tracker-delivery.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts `src/server.ts` as its own process and resolves with its base URL. */
function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/server.ts')], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ child, url: match[1]! });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

describe('an accepted issue survives a crash', () => {
  it('is analysed after a restart when the process was killed mid-analysis', async () => {
    const llm = await startUpstream(() => new Promise(() => {}));
    const dataDir = tempDir();
    const env = {
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      APP_ENV: 'test',
      SIGNAL_CONSUMER: 'false',
      ANALYZER: 'openai',
      LLM_BASE_URL: llm.url,
      LLM_MODEL: 'restart-model',
      ERRTRACKER_CLIENT_SECRET: 's3cret',
    };
    const { child, url } = await startServer(env);
    const body = JSON.stringify(issueAlert('crash-1'));
    const response = await fetch(`${url}/api/v1/webhooks/errtracker/error`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'errtracker-hook-signature': trackerSignature('s3cret', body),
      },
      body,
    });
    expect(await response.json()).toMatchObject({ status: 'accepted', issue_id: 'crash-1' });
    await waitFor(async () => (llm.requests.length > 0 ? true : undefined), {
      what: 'the analysis call',
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    llm.respondWith(() =>
      chatCompletion({
        root_cause: 'Pool exhausted',
        impact: 'Reports fail',
        fix_suggestion: 'Add a pooler',
        prevention: 'Alert on saturation',
        confidence: 0.8,
      }),
    );
    // The dead process's lease on the job runs out; the restarted one takes the job over.
    const later = new TestClock(Date.now() + 5 * 60 * 1000);
    const { app } = await buildTestApp({
      env: { ...env, LOG_LEVEL: 'silent', PORT: '8080' },
      clock: later,
    });
    const approval = await waitFor(
      async () =>
        app.services.store.db
          .selectFrom('approvals')
          .select(['id', 'metadata'])
          .where('metadata', 'like', '%"issue_id":"crash-1"%')
          .executeTakeFirst(),
      { what: 'the approval after the restart', timeoutMs: 15_000 },
    );
    expect(JSON.parse(approval.metadata)).toMatchObject({ llm_provider: 'openai:restart-model' });
  });
});
