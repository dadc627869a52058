import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { analysisRoutes } from '../../src/features/analysis/analysis-routes.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { buildTestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';
import { analyze, expertModel, listen, waitForState } from './analysis-helpers.js';

/** Reads a stream's raw text as it arrives. */
function readRaw(url: string, headers: Record<string, string> = {}) {
  let text = '';
  const request = http.get(url, { headers }, (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
    });
  });
  return { text: () => text, close: () => request.destroy() };
}

describe('stream frames', () => {
  // The routes on their own server, with the app's real services and a short heartbeat.
  const apps: { close(): Promise<unknown> }[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('writes `id:` and `data:` lines with a blank line, and a comment heartbeat', async () => {
    const model = await expertModel({ held: true });
    const { app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: model.upstream.url },
    });
    const routes = Fastify();
    apps.push(routes);
    registerErrorHandler(routes, {
      bodyLimitBytes: app.services.config.bodyLimitBytes,
      isStorageFull: app.services.store.isStorageFull,
      isUnavailable: app.services.store.isUnavailable,
    });
    await routes.register(analysisRoutes, {
      prefix: '/api/v1',
      services: app.services,
      heartbeatMs: 50,
    });
    await routes.listen({ port: 0, host: '127.0.0.1' });
    const taskId = (await analyze(app, { severity: 'P3', affected_services: ['cart'] })).json()
      .task_id as string;
    const { port } = routes.server.address() as AddressInfo;
    const stream = readRaw(`http://127.0.0.1:${port}/api/v1/agents/stream/${taskId}`);
    await waitFor(async () => (stream.text().includes(': heartbeat\n\n') ? true : undefined));
    const [status] = stream.text().split('\n\n');
    expect(status).toMatch(/^id: \d+\ndata: \{.*"type":"status"\}$/);
    model.release();
    await waitFor(async () => (stream.text().includes('"type":"completed"') ? true : undefined));
    const frames = stream
      .text()
      .split('\n\n')
      .filter((frame) => frame && !frame.startsWith(':'));
    for (const frame of frames) expect(frame).toMatch(/^id: \d+\ndata: \{[^\n]*\}$/);
    stream.close();
  });

  it('a resumed stream writes the missed frames in order and the status frame last', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const taskId = (await analyze(app, { severity: 'P3', affected_services: ['cart'] })).json()
      .task_id as string;
    await waitForState(app, taskId, 'COMPLETED');
    const base = await listen(app);
    const stream = readRaw(`${base}/api/v1/agents/stream/${taskId}`, { 'last-event-id': '0' });
    await waitFor(async () => (stream.text().includes('"type":"status"') ? true : undefined));
    const frames = stream
      .text()
      .split('\n\n')
      .filter((frame) => frame && !frame.startsWith(':'));
    const ids = frames.map((frame) => Number(/^id: (\d+)/.exec(frame)![1]));
    const replayed = ids.slice(0, -1);
    expect(replayed).toEqual(replayed.map((_, i) => i + 1));
    expect(ids.at(-1)).toBe(replayed.at(-1));
    expect(frames.at(-2)).toMatch(/"type":"completed"/);
    expect(frames.at(-1)).toMatch(/^id: \d+\ndata: \{.*"state":"COMPLETED".*"type":"status"\}$/);
    stream.close();
  });
});
