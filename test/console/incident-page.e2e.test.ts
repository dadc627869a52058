import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConsoleIfStale,
  hasChromium,
  launchChromium,
  startConsoleService,
} from './console-browser.js';
import { axeViolations, screenshots, type Watch, WIDTHS, watchPage } from './console-checks.js';
import {
  type AlertResult,
  getJson,
  landmarkOf,
  OPERATOR_KEYS,
  postAlertmanager,
  postFlat,
  postSignal,
  postSilence,
  recordLinks,
  SECRET,
  shortId,
} from './pages-fixtures.js';

/**
 * The incident's own page (alerts with labels and annotations, runbook and generator
 * links, grouping, timeline with its silences, approval, analyses) and every record id on the
 * incident, approval, signals and analysis pages a link that opens the record's page.
 * Screenshots in both schemes and widths go to SHOTS_DIR (default /tmp/shots/pages).
 */

const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots/pages';
const RUNBOOK = 'https://runbooks.example/payments/checkout-latency';
const GENERATOR = 'http://prometheus.example:9090/graph?g0.expr=checkout_latency';

describe.skipIf(!hasChromium)('the incident page', () => {
  let browser: Browser;
  let base: string;
  const alertName = `CheckoutLatency${shortId()}`;
  let incident: AlertResult;
  let unsafe: AlertResult;
  let silenceId = '';
  let taskId = '';

  beforeAll(async () => {
    buildConsoleIfStale();
    let service: { url: string };
    [service, browser] = await Promise.all([
      startConsoleService({
        WEBHOOK_SECRET: SECRET,
        OPERATOR_KEYS,
        SIGNAL_CONSUMER: 'true',
      }),
      launchChromium(),
    ]);
    base = service.url;
    incident = await postAlertmanager(base, {
      labels: {
        alertname: alertName,
        severity: 'P0',
        namespace: 'payments',
        pod: 'checkout-7d9f8b6c5-x2x4z',
        team: 'payments',
      },
      annotations: { summary: 'p99 latency over 2 s', runbook_url: RUNBOOK },
      generatorURL: GENERATOR,
    });
    expect(incident.status).toBe('created');
    unsafe = await postFlat(base, {
      alert_name: `OddRunbook${shortId()}`,
      severity: 'P3',
      namespace: 'tools',
      target_resource: 'linter-0',
      message: 'a runbook that is a script',
      annotations: { runbook_url: 'javascript:alert(document.domain)' },
    });
    expect(unsafe.status).toBe('created');
    silenceId = await postSilence(base, alertName);
    const beat = await fetch(`${base}/api/v1/heartbeats/nightly-backup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timeout_seconds: 3600 }),
    });
    expect(beat.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function open(hash: string, colorScheme: 'light' | 'dark' = 'light') {
    const context = await browser.newContext({
      viewport: { width: WIDTHS.desktop, height: 900 },
      colorScheme,
    });
    const page = await context.newPage();
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/${hash}`);
    return { page, watch };
  }

  const done = async ({ page, watch }: { page: Page; watch: Watch }) => {
    expect(watch.problems).toEqual([]);
    await page.context().close();
  };

  it('shows the alerts, the runbook and generator links, the grouping and the timeline with its silence', async () => {
    const visit = await open(`#/incidents/${incident.incident_id}`);
    const { page } = visit;
    const runbook = page.getByTestId('runbook-link');
    await runbook.waitFor();
    expect(await runbook.evaluate((node) => node.tagName)).toBe('A');
    expect(await runbook.getAttribute('href')).toBe(RUNBOOK);
    expect(await page.getByTestId('generator-link').getAttribute('href')).toBe(GENERATOR);
    expect(await page.getByTestId('alert-generator').first().getAttribute('href')).toBe(GENERATOR);
    expect(await page.getByTestId('incident-severity').getAttribute('class')).toBe(
      'badge severity-P0',
    );

    // Labels and annotations wait behind a disclosure.
    const alerts = page.getByTestId('incident-alerts');
    await alerts.locator('summary').first().click();
    await alerts.getByText('team').first().waitFor();
    expect(await alerts.textContent()).toContain('p99 latency over 2 s');

    expect(await page.getByTestId('incident-grouping').textContent()).toContain('Merge rule');
    const silenced = page.getByTestId('incident-silence');
    await silenced.waitFor();
    expect(await silenced.textContent()).toMatch(
      /silenced by ops-carol until .+database maintenance/,
    );
    expect(await silenced.locator('a[data-record="silence"]').getAttribute('data-record-id')).toBe(
      silenceId,
    );
    await done(visit);
  });

  it('shows a runbook that is not an http(s) URL as text, not as a link', async () => {
    const visit = await open(`#/incidents/${unsafe.incident_id}`);
    const runbook = visit.page.getByTestId('runbook-link');
    await runbook.waitFor();
    expect(await runbook.evaluate((node) => node.tagName)).toBe('SPAN');
    expect(await runbook.textContent()).toContain('javascript:alert(document.domain)');
    expect(await visit.page.locator('a[href^="javascript:"]').count()).toBe(0);
    await done(visit);
  });

  it('starts an analysis that goes to its page, stays after a reload and is listed on the incident', async () => {
    const visit = await open(`#/incidents/${incident.incident_id}`);
    const { page } = visit;
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect.poll(() => page.url()).toMatch(/#\/analysis\/[^/?]+$/);
    taskId = decodeURIComponent(page.url().split('#/analysis/')[1] ?? '');
    // The result names its incident (read by id) before the page moves on.
    const named = page
      .getByTestId('analysis-result')
      .locator('a[data-record="incident"]', { hasText: `${alertName} in payments` });
    await named.waitFor({ timeout: 20_000 });
    await page.reload();
    await named.waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('task-state').textContent()).toBe('COMPLETED');
    await page
      .getByTestId('analysis-list')
      .locator('a[data-record="incident"]', { hasText: alertName })
      .waitFor();
    await page.locator(`[data-testid="analysis-list"] a[data-record-id="${taskId}"]`).waitFor();

    await page.goto(`${base}/console/#/incidents/${incident.incident_id}`);
    await page.locator(`[data-testid="analysis-list"] a[data-record-id="${taskId}"]`).waitFor();
    await done(visit);
  }, 60_000);

  it('makes every record id on the incident, approval, signals and analysis pages a link to its page', async () => {
    await postSignal(base, {
      source: 'prometheus',
      alert_name: `PagesSignal${shortId()}`,
      severity: 'warning',
      namespace: 'shop',
      target: 'cart-6c5d4f7b8-q9w8e',
      message: 'handled by the consumer',
    });
    await expect
      .poll(
        async () => {
          const page = await getJson<{ items: { handling: { incident_id: string | null } }[] }>(
            base,
            '/api/v1/signals?limit=5',
          );
          return page.items.some((item) => item.handling.incident_id);
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(taskId).toBeTruthy();

    const pages: [string, string][] = [
      [`#/incidents/${incident.incident_id}`, `[data-testid="analysis-list"] a`],
      [`#/approvals/${incident.approval_id}`, `a[data-record="incident"]`],
      ['#/signals', `a[data-record="incident"]`],
      [`#/analysis/${taskId}`, `[data-testid="analysis-result"] a[data-record="incident"]`],
    ];
    const visit = await open('#/');
    const { page } = visit;
    const followed: string[] = [];
    for (const [hash, ready] of pages) {
      await page.goto(`${base}/console/${hash}`);
      await page.locator(ready).first().waitFor({ timeout: 20_000 });
      const links = await recordLinks(page);
      expect(links.length, `record links on ${hash}`).toBeGreaterThan(0);
      for (const link of links) {
        await page.goto(`${base}/console/${hash}`);
        await page.locator(ready).first().waitFor({ timeout: 20_000 });
        await page
          .locator(`a[data-record="${link.kind}"][data-record-id="${link.id}"]`)
          .first()
          .click();
        await page.locator(landmarkOf(link.kind, link.id)).waitFor({ timeout: 10_000 });
        followed.push(`${hash} → ${link.kind}`);
      }
    }
    for (const kind of ['incident', 'approval', 'analysis', 'silence'])
      expect(
        followed.some((entry) => entry.endsWith(kind)),
        kind,
      ).toBe(true);
    await done(visit);
  }, 120_000);

  it('has no serious accessibility finding and looks right at both widths in both schemes', async () => {
    const found = [
      ...(await axeViolations(browser, `${base}/console/#/incidents/${incident.incident_id}`, (p) =>
        p.getByTestId('incident-approval').locator('[data-testid="signer-progress"]').waitFor(),
      )),
      ...(await axeViolations(browser, `${base}/console/#/analysis/${taskId}`, (p) =>
        p.getByTestId('analysis-result').waitFor({ timeout: 20_000 }),
      )),
      ...(await axeViolations(browser, `${base}/console/#/silences?silence=${silenceId}`, (p) =>
        p.locator('.card.highlighted').waitFor(),
      )),
    ];
    expect(found).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      const suffix = scheme === 'dark' ? '-dark' : '';
      const shots: [string, string, string][] = [
        ['incident', `#/incidents/${incident.incident_id}`, '[data-testid="signer-progress"]'],
        ['analysis', `#/analysis/${taskId}`, '[data-testid="analysis-result"]'],
        ['signals', '#/signals', 'a[data-record="incident"]'],
        ['silences', `#/silences?silence=${silenceId}`, '.card.highlighted'],
        ['heartbeats', '#/heartbeats', '[data-heartbeat]'],
      ];
      for (const [name, hash, ready] of shots) {
        const visit = await open(hash, scheme);
        await visit.page.locator(ready).first().waitFor({ timeout: 20_000 });
        await screenshots(visit.page, `${name}${suffix}`, SHOTS);
        await done(visit);
      }
    }
  }, 120_000);
});
