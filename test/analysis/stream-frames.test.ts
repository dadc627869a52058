import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { analysisRoutes } from '../../src/features/analysis/analysis-routes.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { buildTestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';
import { analyze, expertModel } from './analysis-helpers.js';

/** Reads a stream's raw text as it arrives. */
function readRaw(url: string) {
  let text = '';
  const request = http.get(url, (response) => {
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
    registerErrorHandler(routes, app.services.config.bodyLimitBytes);
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
});
