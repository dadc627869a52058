import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { describeConsoleTokenGuard } from '../helpers/security-checks.js';
import { analyze, expertModel, openIncident, waitForState } from './analysis-helpers.js';

const TOKEN = 'console-token-for-analysis';
const described = { severity: 'P2', affected_services: ['checkout'] };

describeConsoleTokenGuard(
  'analysis',
  TOKEN,
  [{ method: 'POST', url: '/api/v1/agents/analyze', payload: described }],
  async () => (await buildTestApp({ env: { CONSOLE_TOKEN: TOKEN, SIGNAL_CONSUMER: 'false' } })).app,
);

describe('analysis reads stay open with CONSOLE_TOKEN (spec endpoints)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { CONSOLE_TOKEN: TOKEN, SIGNAL_CONSUMER: 'false' } }));
  });

  it('status and result need no token', async () => {
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/agents/analyze',
      payload: described,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const taskId = started.json().task_id;
    expect((await app.inject(`/api/v1/agents/status/${taskId}`)).statusCode).toBe(200);
    expect((await app.inject(`/api/v1/agents/result/${taskId}`)).statusCode).toBe(200);
  });
});

describe('deep analysis requests (CONTRACT, Bad input)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
  });
  it('a context nested 10,000 levels deep is a 400 naming the problem, not a 500', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/agents/analyze',
      payload: `{"severity":"P2","affected_services":["a"],"context":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'bad_body',
      detail: 'Request body nests arrays and objects deeper than 64 levels',
    });
  });
});

describe('analysis admission (CONTRACT, Access)', () => {
  let model: Awaited<ReturnType<typeof expertModel>>;
  let app: TestApp['app'];
  beforeAll(async () => {
    model = await expertModel({ held: true });
    ({ app } = await buildTestApp({
      env: {
        SIGNAL_CONSUMER: 'false',
        ANALYZER: 'openai',
        LLM_BASE_URL: model.upstream.url,
        ANALYSIS_MAX_IN_FLIGHT: '3',
      },
    }));
  });

  it('answers 429 with Retry-After past ANALYSIS_MAX_IN_FLIGHT tasks, and admits again once they finish', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => analyze(app, described)));
    const admitted = answers.filter((answer) => answer.statusCode === 200);
    const refused = answers.filter((answer) => answer.statusCode === 429);
    expect(admitted).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.json()).toEqual({
        detail: 'Too many analysis tasks in progress',
        code: 'analysis_busy',
      });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    model.release();
    for (const answer of admitted) await waitForState(app, answer.json().task_id, 'COMPLETED');
    expect((await analyze(app, described)).statusCode).toBe(200);
  });
});

describe('request-supplied names never reach Object.prototype (STYLE, Habits)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it.each(['constructor', '__proto__', 'toString'])(
    'an alert named %j gives ordinary reasoning',
    async (name) => {
      const started = await analyze(app, { ...described, alert_names: [name] });
      const taskId = started.json().task_id;
      await waitForState(app, taskId, 'COMPLETED');
      const result = (await app.inject(`/api/v1/agents/result/${taskId}`)).json();
      expect(result.final_reasoning).not.toMatch(/native code|function|\[object/);
      expect(JSON.stringify(result)).not.toMatch(/native code/);
    },
  );

  it.each(['constructor', '__proto__', 'hasOwnProperty'])(
    'an incident whose alert_type is %j gives ordinary reasoning',
    async (alertType) => {
      const incidentId = await openIncident(app, {
        alert_type: alertType,
        namespace: `t-${alertType}`,
      });
      const started = await analyze(app, { incident_id: incidentId });
      const taskId = started.json().task_id;
      await waitForState(app, taskId, 'COMPLETED');
      const result = (await app.inject(`/api/v1/agents/result/${taskId}`)).json();
      expect(JSON.stringify(result)).not.toMatch(/native code|\[object Object\]/);
    },
  );
});
