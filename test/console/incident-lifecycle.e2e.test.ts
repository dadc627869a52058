import crypto from 'node:crypto';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConsoleIfStale,
  hasChromium,
  launchChromium,
  startConsoleService,
} from './console-browser.js';
import { axeViolations, screenshots, type Watch, WIDTHS, watchPage } from './console-checks.js';

/**
 * The incident lifecycle in the console: acknowledge and resolve as an operator, the timeline
 * and status filter, silences made from an incident, and heartbeats. Screenshots of each view
 * at desktop and phone width go to SHOTS_DIR (default /tmp/console-shots/).
 */

const SHOTS = path.resolve(process.env.SHOTS_DIR ?? '/tmp/console-shots');
const SECRET = 'lifecycle-e2e-webhook-secret';
const OPERATOR = { id: 'alice', key: 'alice-key-0123456789' };
const operatorHeaders = { 'x-operator-id': OPERATOR.id, 'x-operator-key': OPERATOR.key };

function sign(body: string): string {
  return `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
}

interface AlertResult {
  status: string;
  incident_id: string | null;
  silence_id?: string;
  alert_id: string;
}

async function postAlert(base: string, alert: Record<string, unknown>): Promise<AlertResult> {
  const body = JSON.stringify(alert);
  const response = await fetch(`${base}/api/v1/webhooks/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as AlertResult;
}

async function beat(base: string, name: string, timeoutSeconds: number) {
  const response = await fetch(`${base}/api/v1/heartbeats/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ timeout_seconds: timeoutSeconds }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** An alert of its own: the namespace is part of the fingerprint, so no two converge. */
const newAlert = (prefix: string, namespace: string) => ({
  alert_name: `${prefix}${crypto.randomUUID().slice(0, 8)}`,
  severity: 'critical',
  source: 'prometheus',
  target_resource: 'checkout-7d9f8b6c5-x2x4z',
  namespace,
  message: 'Pod is restarting 5 times / 10 minutes',
  labels: { team: 'payments' },
});

const timelineEvents = (page: Page) =>
  page.getByTestId('incident-timeline').locator('li strong').allTextContents();

describe.skipIf(!hasChromium)('the incident lifecycle in the console', () => {
  let browser: Browser;
  let base: string;
  const alert = newAlert('Lifecycle', 'shop');
  let incidentId = '';

  beforeAll(async () => {
    buildConsoleIfStale();
    let service: { url: string };
    [service, browser] = await Promise.all([
      startConsoleService({ WEBHOOK_SECRET: SECRET, OPERATOR_KEYS: `alice:${OPERATOR.key}` }),
      launchChromium(),
    ]);
    base = service.url;
    // Beaten first so that it has expired (10 s, swept every 5 s) by the heartbeats test.
    await Promise.all([beat(base, 'nightly-backup', 10), beat(base, 'api-watchdog', 3600)]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** A page at phone width: each move is made where a thumb would make it. */
  async function phonePage(): Promise<{ page: Page; watch: Watch }> {
    const context = await browser.newContext({ viewport: { width: WIDTHS.phone, height: 844 } });
    const page = await context.newPage();
    return { page, watch: watchPage(page, base) };
  }

  it('acknowledges then resolves an incident as a signed-in operator, at phone width', async () => {
    const created = await postAlert(base, alert);
    expect(created.status).toBe('created');
    incidentId = created.incident_id ?? '';
    const { page, watch } = await phonePage();
    await page.goto(`${base}/console/#/incidents?status=open`);
    await page.getByRole('link', { name: alert.alert_name }).click();
    await expect.poll(() => page.getByTestId('incident-status').textContent()).toBe('open');
    await expect.poll(() => timelineEvents(page)).toEqual(['opened']);

    await page.getByLabel('Operator id').fill(OPERATOR.id);
    await page.getByLabel('Operator key').fill(OPERATOR.key);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => page.getByTestId('incident-status').textContent()).toBe('acknowledged');
    await expect.poll(() => timelineEvents(page)).toEqual(['opened', 'acknowledged']);
    expect(await page.getByTestId('incident-acknowledged').textContent()).toContain(
      'console_alice',
    );
    await expect(page.getByRole('button', { name: 'Acknowledge' }).count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => page.getByTestId('incident-status').textContent()).toBe('resolved');
    await expect.poll(() => timelineEvents(page)).toEqual(['opened', 'acknowledged', 'resolved']);
    expect(await page.getByTestId('incident-resolved').textContent()).toContain('console_alice');
    await screenshots(page, 'incident', SHOTS);

    // The status filter asks the service: the incident has left the open list for the resolved.
    await page.goto(`${base}/console/#/incidents?status=resolved`);
    await page.locator(`[data-incident-id="${incidentId}"]`).waitFor();
    await page.getByLabel('Status').selectOption('open');
    await expect.poll(() => page.url()).toContain('#/incidents?status=open');
    await page.getByText('No open incidents.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.locator(`[data-incident-id="${incidentId}"]`).waitFor();
    await screenshots(page, 'incidents', SHOTS);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it("follows another operator's moves live, from the feed's events", async () => {
    const other = await postAlert(base, newAlert('LiveMove', 'billing'));
    expect(other.status).toBe('created');
    const id = other.incident_id ?? '';
    const { page, watch } = await phonePage();
    await page.goto(`${base}/console/#/incidents/${id}`);
    await page.locator('.connection[data-state="live"]').waitFor();
    await expect.poll(() => page.getByTestId('incident-status').textContent()).toBe('open');
    const acknowledged = await fetch(`${base}/api/v1/incidents/${id}/acknowledge`, {
      method: 'POST',
      headers: operatorHeaders,
    });
    expect(acknowledged.status).toBe(200);
    await expect
      .poll(() => page.getByTestId('incident-status').textContent(), { timeout: 10_000 })
      .toBe('acknowledged');

    // The Now view shows the move on the incident's row; resolved, the incident leaves it, and
    // the activity says who resolved it.
    await page.goto(`${base}/console/#/`);
    await page.locator('.connection[data-state="live"]').waitFor();
    const row = page.locator(`[data-incident-id="${id}"]`);
    await expect.poll(() => row.locator('[class*="status-"]').textContent()).toBe('acknowledged');
    const resolved = await fetch(`${base}/api/v1/incidents/${id}/resolve`, {
      method: 'POST',
      headers: operatorHeaders,
    });
    expect(resolved.status).toBe(200);
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    await page.goto(`${base}/console/#/activity`);
    await page
      .locator('[data-activity="incident.resolved"]', { hasText: 'resolved by console_alice' })
      .waitFor();
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('silences alerts like an incident from its page, shows what it muted, and expires it', async () => {
    expect(incidentId).toBeTruthy();
    const { page, watch } = await phonePage();
    await page.setViewportSize({ width: WIDTHS.desktop, height: 900 });
    await page.goto(`${base}/console/#/incidents/${incidentId}`);
    await page.getByRole('link', { name: 'Silence alerts like this' }).click();
    await expect.poll(() => page.url()).toContain(`#/silences?incident=${incidentId}`);

    // The matchers come prefilled from the incident: its fields, then its labels.
    await expect.poll(() => page.getByLabel('Matcher 1 value').inputValue()).toBe(alert.alert_name);
    expect(await page.getByLabel('Matcher 1 label').inputValue()).toBe('alertname');
    const labelInputs = await page.locator('.matcher-row input[aria-label$=" label"]').all();
    const names = await Promise.all(labelInputs.map((input) => input.inputValue()));
    expect(names).toEqual(['alertname', 'namespace', 'alert_type', 'workload', 'team']);
    await page.getByLabel('Duration').selectOption({ label: '1 hour' });
    await page.getByLabel('Created by').fill('alice');
    await page.getByRole('button', { name: 'Create silence' }).click();
    const created = page.getByRole('status').filter({ hasText: 'Created silence' });
    await created.waitFor();
    const silenceId = ((await created.textContent()) ?? '').replace('Created silence ', '').trim();
    const item = page.locator(`[data-silence-id="${silenceId}"]`);
    await expect.poll(() => item.getByTestId('silence-state').textContent()).toBe('active');

    // A later identical alert is muted by that silence and shown in what it muted.
    const muted = await postAlert(base, alert);
    expect(muted).toMatchObject({ status: 'silenced', silence_id: silenceId, incident_id: null });
    await expect
      .poll(() => item.locator('.hit-count').textContent(), { timeout: 10_000 })
      .toBe('1');
    await item.getByText('Latest muted alerts').click();
    await item.getByText(muted.alert_id).waitFor();
    await screenshots(page, 'silences', SHOTS);

    await item.getByRole('button', { name: 'Expire' }).click();
    await expect.poll(() => item.getByTestId('silence-state').textContent()).toBe('expired');
    const incident = await (await fetch(`${base}/api/v1/incidents/${incidentId}`)).json();
    expect(incident).toMatchObject({ status: 'resolved', reopen_count: 0 });
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('shows heartbeats ok and expired, with their last beat and time left', async () => {
    await expect
      .poll(
        async () => {
          const listed = await (await fetch(`${base}/api/v1/heartbeats`)).json();
          return (listed as { items: { name: string; status: string }[] }).items.find(
            (item) => item.name === 'nightly-backup',
          )?.status;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe('expired');
    const { page, watch } = await phonePage();
    await page.setViewportSize({ width: WIDTHS.desktop, height: 900 });
    await page.goto(`${base}/console/#/heartbeats`);
    const ok = page.locator('[data-heartbeat="api-watchdog"]');
    const expired = page.locator('[data-heartbeat="nightly-backup"]');
    await expect.poll(() => ok.getByTestId('heartbeat-status').textContent()).toBe('ok');
    expect(await ok.getByTestId('heartbeat-left').textContent()).toMatch(/^(59m|1h 0m) left$/);
    expect(await expired.getByTestId('heartbeat-status').textContent()).toBe('expired');
    expect(await expired.getByTestId('heartbeat-left').textContent()).toMatch(/^expired \d+s ago$/);
    // The expiry opened an incident, linked from its row.
    await expired.getByRole('link').click();
    await expect.poll(() => page.url()).toContain('#/incidents/');
    await page.getByRole('heading', { name: /HeartbeatMissing/ }).waitFor();
    await page.goBack();
    await ok.waitFor();
    await screenshots(page, 'heartbeats', SHOTS);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('has no serious or critical accessibility violation on the new views', async () => {
    const views: [string, (page: Page) => Promise<void>][] = [
      ['#/incidents', (page) => page.locator('[data-incident-id]').first().waitFor()],
      [`#/incidents/${incidentId}`, (page) => page.getByTestId('incident-timeline').waitFor()],
      [`#/silences?incident=${incidentId}`, (page) => page.getByLabel('Matcher 1 label').waitFor()],
      ['#/heartbeats', (page) => page.locator('[data-heartbeat]').first().waitFor()],
    ];
    const found: string[] = [];
    for (const [hash, ready] of views) {
      found.push(...(await axeViolations(browser, `${base}/console/${hash}`, ready)));
    }
    expect(found).toEqual([]);
    // Eight axe passes (four views, light and dark): over 30 s on a busy machine.
  }, 90_000);
});
