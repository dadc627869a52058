import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { buildTestApp, TestClock } from '../helpers/build-app.js';
import { startServerProcess } from '../helpers/server-process.js';
import { chatCompletion, startUpstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';
import { issueAlert, trackerSignature } from './tracker-delivery.js';

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
    const { child, url } = await startServerProcess(env);
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
