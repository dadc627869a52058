import crypto from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What the console page tests send to the service: alerts as Alertmanager and as a flat
 * webhook, signals, silences and operator decisions, each through the public API.
 */

export const SECRET = 'pages-e2e-webhook-secret';
export const ALICE = { id: 'alice', key: 'alice-key-0123456789' };
export const BOB = { id: 'bob', key: 'bob-key-0123456789ab' };
export const OPERATOR_KEYS = `${ALICE.id}:${ALICE.key},${BOB.id}:${BOB.key}`;

export const shortId = () => crypto.randomUUID().slice(0, 8);

function sign(body: string): string {
  return `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
}

export interface AlertResult {
  status: string;
  incident_id: string | null;
  approval_id: string | null;
  alert_id: string;
}

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBeLessThan(300);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One firing alert as Alertmanager's webhook (version 4) delivers it. */
export async function postAlertmanager(
  base: string,
  alert: {
    labels: Record<string, string>;
    annotations?: Record<string, string>;
    generatorURL?: string;
  },
): Promise<AlertResult> {
  const body = {
    version: '4',
    status: 'firing',
    receiver: 'ops',
    groupKey: '{}:{}',
    alerts: [
      {
        status: 'firing',
        labels: alert.labels,
        annotations: alert.annotations ?? {},
        startsAt: new Date().toISOString(),
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: alert.generatorURL ?? '',
      },
    ],
  };
  const response = await fetch(`${base}/api/v1/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await json<{ results: AlertResult[] }>(response);
  return answer.results[0] as AlertResult;
}

/** A flat alert on the signed webhook. */
export async function postFlat(base: string, alert: Record<string, unknown>): Promise<AlertResult> {
  const body = JSON.stringify(alert);
  const response = await fetch(`${base}/api/v1/webhooks/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  return json<AlertResult>(response);
}

export async function postSignal(base: string, signal: Record<string, unknown>) {
  const body = JSON.stringify(signal);
  const response = await fetch(`${base}/api/v1/webhooks/signals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  return json<unknown>(response);
}

/** A silence through Alertmanager's API v2, for an hour. */
export async function postSilence(base: string, alertName: string): Promise<string> {
  const now = Date.now();
  const response = await fetch(`${base}/api/v1/alertmanager/api/v2/silences`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      matchers: [{ name: 'alertname', value: alertName, isRegex: false, isEqual: true }],
      startsAt: new Date(now).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      createdBy: 'ops-carol',
      comment: 'database maintenance',
    }),
  });
  return (await json<{ silenceID: string }>(response)).silenceID;
}

export async function decide(
  base: string,
  approvalId: string,
  who: { id: string; key: string },
  decision: 'approve' | 'reject',
) {
  const response = await fetch(`${base}/api/v1/approvals/${approvalId}/decision`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-operator-id': who.id,
      'x-operator-key': who.key,
    },
    body: JSON.stringify({ decision }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function getJson<T>(base: string, path: string): Promise<T> {
  return json<T>(await fetch(`${base}${path}`));
}

/** Signs in on the page's operator form. */
export async function signIn(page: Page, who: { id: string; key: string }) {
  await page.getByLabel('Operator id').fill(who.id);
  await page.getByLabel('Operator key').fill(who.key);
  await page.getByRole('button', { name: 'Sign in as operator' }).click();
}

/** Each record link on the page: kind, id and where it goes. */
export async function recordLinks(page: Page) {
  return page.locator('a[data-record]').evaluateAll((links) =>
    links.map((link) => ({
      kind: link.getAttribute('data-record') ?? '',
      id: link.getAttribute('data-record-id') ?? '',
      href: link.getAttribute('href') ?? '',
    })),
  );
}

/** What shows that a record's own page is open. */
export function landmarkOf(kind: string, id: string): string {
  const value = JSON.stringify(id);
  switch (kind) {
    case 'incident':
      return `.incident-page[data-incident-id=${value}]`;
    case 'approval':
      return `.detail[data-approval-id=${value}]`;
    case 'analysis':
      return `[data-task-id=${value}]`;
    case 'silence':
      return `.card.highlighted[data-silence-id=${value}]`;
    default:
      throw new Error(`unknown record kind ${kind}`);
  }
}
