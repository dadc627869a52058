import crypto from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConsoleIfStale,
  hasChromium,
  launchChromium,
  startConsoleService,
} from './console-browser.js';
import { axeViolations, screenshots, WIDTHS, watchPage } from './console-checks.js';

/**
 * The Now view answers "what is on fire, and what waits for me?" at a glance. The
 * most severe incident first in a colour of its own (both schemes), the approvals waiting for
 * the operator pinned on top at phone width too, search and history in the hash, and an
 * Activity list that outlives navigation. Screenshots go to /tmp/shots/triage.
 */

const SHOTS = '/tmp/shots/triage';
const SECRET = 'now-e2e-webhook-secret';
const ALICE = { id: 'alice', key: 'alice-key-0123456789' };
const BOB = { id: 'bob', key: 'bob-key-0123456789' };
const run = crypto.randomUUID().slice(0, 6);

function sign(body: string): string {
  return `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
}

async function postAlerts(base: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${base}/api/v1/webhooks/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as { incident_id: string; approval_id: string | null };
}

const alert = (name: string, severity: string, namespace = 'shop') => ({
  alert_name: `${name}${run}`,
  severity,
  source: 'prometheus',
  target_resource: `${name.toLowerCase()}-7d9f8b6c5-x2x4z`,
  namespace,
  message: `${name} is firing`,
  labels: { team: `team-${name.toLowerCase()}` },
});

/** The page as an operator who signed in on this tab (the console keeps it in sessionStorage). */
async function openAs(browser: Browser, who: typeof ALICE | null, width: number, height: number) {
  const context = await browser.newContext({ viewport: { width, height } });
  if (who) {
    await context.addInitScript(
      `sessionStorage.setItem('console-operator', ${JSON.stringify(JSON.stringify(who))})`,
    );
  }
  return context.newPage();
}

/** The look of the first element `selector` finds: what tells P0 from P3 on screen. */
function lookOf(page: Page, selector: string) {
  // A string: the page's globals (getComputedStyle) are not in this file's Node types.
  return page.evaluate<string>(`(() => {
    const style = getComputedStyle(document.querySelector(${JSON.stringify(selector)}));
    return [style.backgroundColor, style.color, style.fontWeight, style.borderColor].join(' ');
  })()`);
}

describe.skipIf(!hasChromium)('the Now view', () => {
  let browser: Browser;
  let base: string;
  let signedApproval: string;

  beforeAll(async () => {
    buildConsoleIfStale();
    let service: { url: string };
    [service, browser] = await Promise.all([
      startConsoleService({
        WEBHOOK_SECRET: SECRET,
        OPERATOR_KEYS: `${ALICE.id}:${ALICE.key},${BOB.id}:${BOB.key}`,
      }),
      launchChromium(),
    ]);
    base = service.url;
    // The P0 arrives in the middle, after older and newer less severe ones: it must still lead.
    const names: [string, string][] = [
      ['DiskSlow', 'P3'],
      ['CertExpiring', 'P3'],
      ['PodRestarts', 'P2'],
      ['LatencyHigh', 'P2'],
      ['QueueBacklog', 'P1'],
      ['DatabaseDown', 'P0'],
      ['MemoryPressure', 'P2'],
      ['ErrorRate', 'P1'],
      ['TargetDown', 'P2'],
      ['NodeNotReady', 'P1'],
      ['ReplicaMismatch', 'P3'],
      ['OOMKilled', 'P2'],
      ['SlowQueries', 'P3'],
    ];
    for (const [name, severity] of names) await postAlerts(base, alert(name, severity));
    // A critical approval (P0) alice has signed: 1 of 2, waiting for bob, not for alice.
    const critical = await postAlerts(base, alert('ApiServerDown', 'P0', 'kube-system'));
    signedApproval = critical.approval_id ?? '';
    const signed = await fetch(`${base}/api/v1/approvals/${signedApproval}/decision`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-operator-id': ALICE.id,
        'x-operator-key': ALICE.key,
      },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(signed.status, await signed.clone().text()).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the P0 first, ten incidents on a 1280×800 screen, and P0 unlike P3 in both schemes', async () => {
    const page = await openAs(browser, null, WIDTHS.desktop, 800);
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/`);
    const rows = page.locator('[data-testid="now-incidents"] > li');
    await expect.poll(() => rows.count()).toBe(14);
    expect(await rows.first().getAttribute('data-severity')).toBe('P0');
    const severities = await rows.evaluateAll((items) =>
      items.map((item) => item.getAttribute('data-severity')),
    );
    expect(severities).toEqual([...severities].sort());
    const onScreen = await page.evaluate<number>(
      `[...document.querySelectorAll('[data-testid="now-incidents"] > li')]
        .filter((item) => item.getBoundingClientRect().bottom <= innerHeight).length`,
    );
    expect(onScreen).toBeGreaterThanOrEqual(10);
    await expect.poll(() => page.getByTestId('counts').textContent()).toContain('14 unresolved');

    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const p0 = await lookOf(page, '[data-testid="now-incidents"] .badge.severity-P0');
      const p1 = await lookOf(page, '[data-testid="now-incidents"] .badge.severity-P1');
      const p2 = await lookOf(page, '[data-testid="now-incidents"] .badge.severity-P2');
      const p3 = await lookOf(page, '[data-testid="now-incidents"] .badge.severity-P3');
      expect(new Set([p0, p1, p2, p3]).size, `${colorScheme}: ${[p0, p1, p2, p3]}`).toBe(4);
      await page.screenshot({ path: `${SHOTS}/now-1280-${colorScheme}.png` });
      await page.setViewportSize({ width: WIDTHS.phone, height: 844 });
      await page.screenshot({ path: `${SHOTS}/now-390-${colorScheme}.png` });
      await page.setViewportSize({ width: WIDTHS.desktop, height: 800 });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshots(page, 'now', SHOTS);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('pins the approvals waiting for the signed-in operator at the top, on a phone too', async () => {
    // Nobody signed in: every pending approval waits, the critical one first.
    const anyone = await openAs(browser, null, WIDTHS.phone, 844);
    await anyone.goto(`${base}/console/`);
    const first = anyone.locator('[data-testid="waiting-approvals"] [data-approval-id]').first();
    await expect.poll(() => first.getAttribute('data-approval-id')).toBe(signedApproval);
    const box = await first.boundingBox();
    expect(box && box.y + box.height).toBeLessThan(844);
    expect(await first.textContent()).toContain(`for ApiServerDown${run} in kube-system`);
    await anyone.context().close();

    // Bob sees alice's signature counted; alice is not asked again.
    const bob = await openAs(browser, BOB, WIDTHS.phone, 844);
    await bob.goto(`${base}/console/`);
    const waiting = bob.locator(
      `[data-testid="waiting-approvals"] [data-approval-id="${signedApproval}"]`,
    );
    await expect
      .poll(() => waiting.getByTestId('signer-progress').textContent())
      .toBe('1 of 2 signers: console_alice');
    await expect
      .poll(() => bob.getByRole('heading', { name: /Waiting for your decision/ }).count())
      .toBe(1);
    await bob.screenshot({ path: `${SHOTS}/now-390-signed-in.png` });
    await bob.context().close();

    const alice = await openAs(browser, ALICE, WIDTHS.desktop, 800);
    const watch = watchPage(alice, base);
    await alice.goto(`${base}/console/`);
    const list = alice.getByTestId('waiting-approvals');
    await list.locator('[data-approval-id]').first().waitFor();
    await alice.getByRole('button', { name: /Show all/ }).click();
    expect(await list.locator(`[data-approval-id="${signedApproval}"]`).count()).toBe(0);

    // A new approval arrives live, named by its incident, without a reload.
    const fresh = await postAlerts(base, alert('FreshOutage', 'P0', 'billing'));
    const arrived = list.locator(`[data-approval-id="${fresh.approval_id}"]`);
    await arrived.waitFor({ timeout: 10_000 });
    expect(await arrived.textContent()).toContain(`for FreshOutage${run} in billing`);
    expect(await arrived.getByTestId('signer-progress').textContent()).toBe('0 of 2 signers');
    expect(watch.problems).toEqual([]);
    await alice.context().close();
  });

  it('searches, filters by severity (P0 first) and reads history beyond the latest 50, all in the link', async () => {
    // 60 more incidents in one Alertmanager body, then half of them resolved.
    const many = Array.from({ length: 60 }, (_, i) => ({
      status: 'firing',
      labels: {
        alertname: `Bulk${run}N${i}`,
        severity: i % 2 ? 'P3' : 'P2',
        namespace: 'bulk',
        pod: `bulk-${i}`,
      },
      annotations: { summary: 'bulk' },
    }));
    await postAlerts(base, { version: '4', status: 'firing', alerts: many });
    await postAlerts(base, {
      version: '4',
      status: 'resolved',
      alerts: many.slice(0, 30).map((item) => ({ ...item, status: 'resolved' })),
    });

    const page = await openAs(browser, null, WIDTHS.desktop, 900);
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/`);
    const rows = page.locator('[data-testid="now-incidents"] > li');
    await rows.first().waitFor();
    const options = await page
      .getByLabel('Severity', { exact: true })
      .locator('option')
      .allTextContents();
    expect(options).toEqual(['All', 'P0', 'P1', 'P2', 'P3']);

    await page.getByLabel('Search', { exact: true }).fill(`DatabaseDown${run}`);
    await page.getByLabel('Search', { exact: true }).press('Enter');
    await expect.poll(() => page.url()).toContain(`#/?q=DatabaseDown${run}`);
    await expect.poll(() => rows.allTextContents()).toHaveLength(1);
    expect(await rows.first().textContent()).toContain(`DatabaseDown${run}`);

    // A label is searched too; the severity filter goes in the link.
    await page.goto(`${base}/console/#/?q=team-oomkilled`);
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByLabel('Severity', { exact: true }).selectOption('P0');
    await expect.poll(() => page.url()).toContain('severity=P0');
    await page.getByText('No incidents match.').waitFor();

    // History: every status, newest first, 50 a page and more on demand.
    await page.goto(`${base}/console/#/?show=all&q=Bulk${run}`);
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => rows.count()).toBe(60);
    expect(await page.locator('[data-testid="now-incidents"] .status-resolved').count()).toBe(30);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    await screenshots(page, 'now-history', SHOTS);

    // A time range over the incidents' last seen, in the reader's time zone, also in the link.
    const local = (offsetMs: number) => {
      const date = new Date(Date.now() + offsetMs);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
    };
    await page.getByText('Time range').click();
    await page.getByLabel('Seen from').fill(local(-3_600_000));
    await page.getByLabel('Seen until').fill(local(3_600_000));
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.url()).toMatch(/since=.*until=/);
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByLabel('Seen until').fill(local(-7_200_000));
    await page.getByLabel('Seen from').fill(local(-10_800_000));
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No incidents match.').waitFor();
    expect(watch.problems).toEqual([]);
    await page.context().close();
  });

  it('pins the oldest critical approval on a fresh page behind 220 newer pending ones', async () => {
    const newer = Array.from({ length: 220 }, (_, i) => ({
      status: 'firing',
      labels: {
        alertname: `Pile${run}N${i}`,
        severity: 'warning',
        namespace: 'pile',
        pod: `p-${i}`,
      },
      annotations: { summary: 'pile' },
    }));
    await postAlerts(base, { version: '4', status: 'firing', alerts: newer });
    const page = await openAs(browser, null, WIDTHS.desktop, 800);
    await page.goto(`${base}/console/`);
    // Critical approvals rank first: the oldest one is among the three shown at once.
    const pinned = page.locator('[data-testid="waiting-approvals"] [data-approval-id]');
    await expect
      .poll(async () => {
        const shown = await pinned.evaluateAll((items) =>
          items.map((item) => item.getAttribute('data-approval-id')),
        );
        return shown.slice(0, 3).includes(signedApproval);
      })
      .toBe(true);
    await page.context().close();
  });

  it('keeps the Activity of the last hour across navigation and a reload, one line per analysis', async () => {
    const page = await openAs(browser, null, WIDTHS.desktop, 900);
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/#/activity`);
    await page.locator('.connection[data-state="live"]').waitFor();
    const created = await postAlerts(base, alert('ActivityProbe', 'P1', 'ops'));
    const line = page.locator('.activity li[data-activity="incident.created"]', {
      hasText: `ActivityProbe${run}`,
    });
    await line.waitFor({ timeout: 10_000 });
    expect(await line.textContent()).toContain(`New P1 incident ActivityProbe${run} in ops`);
    expect(await line.getByRole('link', { name: `ActivityProbe${run}` }).getAttribute('href')).toBe(
      `#/incidents/${created.incident_id}`,
    );

    const started = await fetch(`${base}/api/v1/agents/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ incident_id: created.incident_id }),
    });
    const { task_id: taskId } = (await started.json()) as { task_id: string };
    const analysis = page.locator('.activity li[data-activity="analysis.updated"]');
    await expect.poll(() => analysis.textContent(), { timeout: 20_000 }).toMatch(/COMPLETED 100%/);
    expect(await analysis.count()).toBe(1);
    expect(await analysis.getByRole('link').getAttribute('href')).toBe(`#/analysis/${taskId}`);

    await page.getByRole('link', { name: 'Incidents', exact: true }).click();
    await page.getByRole('heading', { name: 'Incidents', exact: true }).waitFor();
    await page.goBack();
    await line.waitFor();
    expect(await analysis.count()).toBe(1);
    await page.reload();
    await line.waitFor();
    expect(await analysis.count()).toBe(1);
    await screenshots(page, 'activity', SHOTS);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshots(page, 'activity-dark', SHOTS);
    expect(watch.problems).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('has no serious or critical accessibility violation on Now and Activity', async () => {
    const now = await axeViolations(browser, `${base}/console/`, async (page) => {
      await page.locator('[data-testid="now-incidents"] > li').first().waitFor();
      await page.locator('[data-testid="waiting-approvals"] [data-approval-id]').first().waitFor();
    });
    const activity = await axeViolations(browser, `${base}/console/#/activity`, async (page) => {
      await page.getByRole('heading', { name: 'Activity' }).waitFor();
    });
    expect([...now, ...activity]).toEqual([]);
    // axe over every view in both schemes: seconds alone, more beside the other suites.
  }, 90_000);
});
