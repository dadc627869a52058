import { describe, expect, it, vi } from 'vitest';
import { INCIDENT_FOLLOW_UP_JOB } from '../../src/features/escalation/incident-followup.js';
import { chatEnv } from '../chat/chat-flow.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { followUpCompleted, holdJobsInTransaction } from '../helpers/follow-up-jobs.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

const alert = (status: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'stops-repair',
  target_resource: 'checkout-1',
  status,
});

/**
 * CONTRACT, Incident lifecycle: resolving "stops any auto-repair that has not started
 * executing". An incident resolved while its follow-up waits (the queue refused it) gets
 * neither a card nor a repair evaluation once the queue is back.
 */
describe.each(backends())('an incident resolved before its follow-up on %s', (backend) => {
  it('gets no card and no auto-repair', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    const { jobs, store } = app.services;
    // The follow-up waits, as behind a queue outage: refused by Redis (the outbox keeps it), or
    // on the SQL queue committed with the incident but not due until the test says so.
    const enqueue = jobs.enqueue.bind(jobs);
    vi.spyOn(jobs, 'enqueue').mockImplementation(async (name, ...rest) => {
      if (name === INCIDENT_FOLLOW_UP_JOB.name) throw new Error('queue unavailable (test)');
      return enqueue(name, ...rest);
    });
    const held = holdJobsInTransaction(app);
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', alert('firing'))).json();
    await postSigned(app, '/api/v1/webhooks/alerts', alert('resolved'));
    const jobId = `follow-up-${created.incident_id}`;
    vi.restoreAllMocks();
    await held.release(app, jobId, INCIDENT_FOLLOW_UP_JOB.name);
    await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
      what: 'the follow-up run after the outage',
      timeoutMs: 15_000,
    });
    const repairs = await store.db
      .selectFrom('operation_log')
      .select('type')
      .where('approval_id', '=', created.approval_id)
      .where('type', '=', 'AUTO_REPAIR_TRIGGERED')
      .execute();
    expect(repairs).toEqual([]);
    expect(tg.calls('sendMessage')).toEqual([]);
    const approval = (await app.inject(`/api/v1/approvals/${created.approval_id}`)).json();
    expect(approval.status).toBe('expired');
    await tg.close();
  });
});
