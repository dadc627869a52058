import { beforeAll, describe, expect, it } from 'vitest';
import { createDryRunExecutor } from '../../src/adapters/executors/dry-run-executor.js';
import { createOutbox } from '../../src/features/outbox/outbox.js';
import { loadPlaybooks } from '../../src/features/repair/playbooks.js';
import { notifyResultInChat } from '../../src/features/repair/repair-chat.js';
import {
  EVALUATE_REPAIR_JOB,
  enqueueRepairEvaluation,
  REPAIR_JOB_CONCURRENCY,
  registerRepairWorkers,
} from '../../src/features/repair/repair-jobs.js';
import { repairResultText } from '../../src/features/repair/repair-result-text.js';
import { ChatApiError, type ChatPort } from '../../src/ports/chat.js';
import type { JobHandler, JobQueue } from '../../src/ports/jobs.js';
import type { Services } from '../../src/services.js';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { operationsOf, repairDeps, seedIncidentApproval } from './repair-fixtures.js';

let app: TestApp['app'];
let store: TestApp['app']['services']['store'];
beforeAll(async () => {
  ({ app } = await buildTestApp());
  ({ store } = app.services);
});

function fakeJobs() {
  const handlers = new Map<string, { handler: JobHandler; concurrency: number }>();
  const enqueued: unknown[][] = [];
  const jobs: JobQueue = {
    enqueue: async (...args) => {
      enqueued.push(args);
      return 'id';
    },
    process: (name, handler, concurrency) => void handlers.set(name, { handler, concurrency }),
    start: async () => {},
    close: async () => {},
  };
  return { jobs, handlers, enqueued };
}

describe('repair jobs', () => {
  it('registers repair.evaluate, which evaluates the approval named in the payload', async () => {
    const { jobs, handlers, enqueued } = fakeJobs();
    const { store, log, metrics } = app.services;
    const outbox = createOutbox({ store, jobs, log, metrics });
    const services: Services = { ...app.services, jobs, outbox };
    const { deps } = repairDeps(app, {
      executor: createDryRunExecutor(),
      playbooks: loadPlaybooks(),
    });
    registerRepairWorkers(services, deps);
    const registered = handlers.get(EVALUATE_REPAIR_JOB.name);
    expect(registered?.concurrency).toBe(REPAIR_JOB_CONCURRENCY);

    const { approvalId } = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
    await enqueueRepairEvaluation(services, approvalId);
    expect(enqueued).toEqual([
      ['repair.evaluate', { approval_id: approvalId }, { jobId: `repair-evaluate-${approvalId}` }],
    ]);
    await registered?.handler({ approval_id: approvalId });
    expect((await operationsOf(store, approvalId)).map((e) => e.type)).toEqual([
      'AUTO_REPAIR_TRIGGERED',
      'EXECUTION_COMPLETED',
    ]);
    // A malformed payload is dropped, not retried.
    await expect(registered?.handler({})).resolves.toBeUndefined();
  });
});

function fakeChat(configured: boolean, fail = false) {
  const sent: string[] = [];
  const chat: ChatPort = {
    configured,
    sendMessage: async (text) => {
      if (fail) throw new ChatApiError('sendMessage', 'Bad Request: chat not found');
      sent.push(text);
      return { message_id: 77, raw: {} };
    },
    editMessage: async () => {},
    answerCallback: async () => {},
    getUpdates: async () => [],
    rateLimitedUntil: () => 0,
    lastContact: () => null,
  };
  return { chat, sent };
}

describe('notifyResultInChat', () => {
  const message = (approval: string) => ({
    text: 'Repair executed',
    approval_id: approval,
    incident_id: 'inc-9',
    actor: 'auto-repair',
  });

  it('sends the text and records CHAT_RESULT_SENT', async () => {
    const { chat, sent } = fakeChat(true);
    await notifyResultInChat({ ...app.services, chat })(message('n-1'));
    expect(sent).toEqual(['Repair executed']);
    const [entry] = await operationsOf(store, 'n-1');
    expect(entry).toMatchObject({
      type: 'CHAT_RESULT_SENT',
      incident_id: 'inc-9',
      actor: 'auto-repair',
      success: 1,
      error_message: null,
    });
    expect(JSON.parse(entry!.context)).toEqual({ message_id: 77, text: 'Repair executed' });
  });

  it('records a gateway failure with its reason', async () => {
    const { chat } = fakeChat(true, true);
    await notifyResultInChat({ ...app.services, chat })(message('n-2'));
    expect((await operationsOf(store, 'n-2'))[0]).toMatchObject({
      success: 0,
      error_message: 'Chat API error: Bad Request: chat not found',
    });
  });

  it('sends and records nothing without a bot token', async () => {
    const { chat, sent } = fakeChat(false);
    await notifyResultInChat({ ...app.services, chat })(message('n-3'));
    expect([sent, await operationsOf(store, 'n-3')]).toEqual([[], []]);
  });
});

describe('repairResultText', () => {
  const result = {
    success: false,
    playbook_id: 'restart',
    executed_steps: [
      { step_id: 'one', success: true, output: 'deployment.apps/api restarted', simulated: false },
      { step_id: 'two', success: false, output: `error: ${'x'.repeat(300)}`, simulated: false },
    ],
    execution_time_ms: 1234,
    error: 'Step two failed: error',
  };

  it('says what ran, what failed and why', () => {
    const text = repairResultText({
      approvalId: 'apr-1',
      actor: 'tg_42',
      playbook: { id: 'restart', name: 'Restart' },
      executor: 'kubectl',
      result,
    });
    const lines = text.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      '❌ Repair failed',
      'Approval: apr-1',
      'Playbook: Restart (restart)',
      'Started by: tg_42 · executor kubectl',
      'Steps: 2 in 1234 ms',
    ]);
    expect(lines[5]).toBe('• one: deployment.apps/api restarted');
    expect(lines[6]?.startsWith('✗ two: error: xxx')).toBe(true);
    expect(lines[6]?.endsWith('…')).toBe(true);
    expect(lines[7]).toBe('Error: Step two failed: error');
  });

  it('marks an automatic dry run as changing nothing', () => {
    const text = repairResultText({
      approvalId: 'apr-2',
      actor: 'auto-repair',
      playbook: { id: 'restart', name: 'Restart' },
      executor: 'dry-run',
      result: { ...result, success: true, error: null, executed_steps: [] },
    });
    expect(text.split('\n')[0]).toBe('🧪 Repair dry run recorded');
    expect(text).toContain('the approval stays pending for a person');
  });
});
