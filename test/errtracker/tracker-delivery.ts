import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { trackerFixture } from './fixtures.js';

export const TRACKER_URL = '/api/v1/webhooks/errtracker/error';

/** The published issue-alert example with its issue id, level and culprit replaced. */
export function issueAlert(
  issueId: string,
  overrides: { level?: string; culprit?: string; action?: string; title?: string } = {},
) {
  const body = structuredClone(trackerFixture('issue-alert-triggered')) as {
    action: string;
    data: { event: Record<string, unknown> };
  };
  body.action = overrides.action ?? 'triggered';
  Object.assign(body.data.event, {
    issue_id: issueId,
    ...(overrides.level ? { level: overrides.level } : {}),
    ...(overrides.culprit ? { culprit: overrides.culprit } : {}),
    ...(overrides.title ? { title: overrides.title } : {}),
  });
  return body;
}

export function trackerSignature(secret: string, body: string): string {
  return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

export function deliver(
  app: FastifyInstance,
  payload: unknown,
  options: { secret?: string; headers?: Record<string, string> } = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return app.inject({
    method: 'POST',
    url: TRACKER_URL,
    payload: body,
    headers: {
      'content-type': 'application/json',
      ...(options.secret
        ? { 'errtracker-hook-signature': trackerSignature(options.secret, body) }
        : {}),
      ...options.headers,
    },
  });
}
