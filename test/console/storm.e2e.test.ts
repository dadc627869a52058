import crypto from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConsoleIfStale,
  hasChromium,
  launchChromium,
  startConsoleService,
} from './console-browser.js';
import { WIDTHS, watchPage } from './console-checks.js';

/**
 * A storm: 3,000 alerts arrive while the Now view is open. The
 * page renders each event from its own fields and reads only in batches, so it issues fewer
 * than 100 requests during the storm (it issued about 9,000), its main thread never blocks for
 * more than 200 ms (no long task over 200 ms; on a machine too busy to schedule the renderer,
 * a trace shows that such a task's own CPU time was small), and it ends up showing the P0 first.
 */

const SECRET = 'storm-e2e-webhook-secret';
const SEVERITIES = ['P3', 'P2', 'P2', 'P1', 'P3', 'P2'];
const BODIES = 3;
const PER_BODY = 1000;
/** Distinct workloads: each body repeats most of the fingerprints of the one before. */
const FINGERPRINTS = 700;

function sign(body: string): string {
  return `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
}

const run = crypto.randomUUID().slice(0, 6);

/** One Alertmanager body: alerts over the shared workloads, a few of them P0. */
function stormBody(index: number) {
  const alerts = Array.from({ length: PER_BODY }, (_, i) => {
    const n = (index * 300 + i) % FINGERPRINTS;
    const p0 = n % 97 === 0;
    return {
      status: 'firing',
      labels: {
        alertname: p0 ? `StormOutage${run}` : `Storm${run}Alert${n % 40}`,
        severity: p0 ? 'P0' : (SEVERITIES[n % SEVERITIES.length] ?? 'P3'),
        namespace: `storm-${n % 7}`,
        pod: `svc-${n}-7d9f8b6c5-x2x4z`,
      },
      annotations: { summary: `storm alert ${n}` },
    };
  });
  return { version: '4', status: 'firing', receiver: 'console-storm', alerts };
}

async function post(base: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${base}/api/v1/webhooks/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

interface TraceEvent {
  name: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * The renderer main thread's tasks from a Chromium trace, in milliseconds: wall time and the
 * thread's own CPU time. A long task's duration is wall time: on a busy machine it includes
 * time the renderer was not scheduled at all, which no page can prevent.
 */
function mainThreadTasks(trace: Buffer): { wall: number; cpu: number }[] {
  const parsed = JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  return events
    .filter((e) => e.name === 'RunTask' && e.pid === main?.pid && e.tid === main?.tid)
    .map((e) => ({ wall: (e.dur ?? 0) / 1000, cpu: (e.tdur ?? 0) / 1000 }));
}

/** Runs in the page before the console: every long task of the main thread, kept. */
const OBSERVE_LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
  }).observe({ type: 'longtask', buffered: true });
`;

describe.skipIf(!hasChromium)('the Now view in an alert storm', () => {
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    buildConsoleIfStale();
    let service: { url: string };
    [service, browser] = await Promise.all([
      startConsoleService({ WEBHOOK_SECRET: SECRET }),
      launchChromium(),
    ]);
    base = service.url;
    // Something on fire already (no P0), so the page has rows and approvals to keep current.
    await post(base, {
      version: '4',
      status: 'firing',
      alerts: Array.from({ length: 60 }, (_, i) => ({
        status: 'firing',
        labels: {
          alertname: `Before${run}Alert${i}`,
          severity: i % 2 ? 'P2' : 'P3',
          namespace: 'before',
          pod: `before-${i}-7d9f8b6c5-x2x4z`,
        },
      })),
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('takes 3,000 alerts with fewer than 100 requests, no long task over 200 ms, and the P0 first', async () => {
    const context = await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 800 } });
    await context.addInitScript(OBSERVE_LONG_TASKS);
    const page = await context.newPage();
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/`);
    await page.locator('.connection[data-state="live"]').waitFor();
    const rows = page.locator('[data-testid="now-incidents"] > li');
    await rows.first().waitFor();
    // Let the first reads finish: only what the storm causes is counted.
    await page.waitForTimeout(2500);

    // A second tab (in a browser context, so a renderer process, of its own) on the incidents
    // list, which reads its list again on incident events.
    const listContext = await browser.newContext({
      viewport: { width: WIDTHS.desktop, height: 800 },
    });
    const listPage = await listContext.newPage();
    await listPage.goto(`${base}/console/#/incidents`);
    await listPage.locator('[data-incident-id]').first().waitFor();
    await listPage.waitForTimeout(1500);

    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const listRequests: string[] = [];
    listPage.on('request', (request) => listRequests.push(request.url()));
    const longBefore = await page.evaluate<number[]>('window.__longTasks.slice()');

    await browser.startTracing(page, { categories: ['disabled-by-default-devtools.timeline'] });
    const started = Date.now();
    for (let index = 0; index < BODIES; index++) await post(base, stormBody(index));
    const sent = Date.now() - started;

    // The storm's last events reach the page, then its throttled reads settle.
    const counts = (await (await fetch(`${base}/api/v1/incidents/counts`)).json()) as {
      open: Record<string, number>;
    };
    await expect
      .poll(() => page.locator('[data-severity="P0"] .severity-count').textContent(), {
        timeout: 20_000,
      })
      .toBe(String(counts.open.P0));
    await page.waitForTimeout(3000);

    const longTasks = (await page.evaluate<number[]>('window.__longTasks')).slice(
      longBefore.length,
    );
    const tasks = mainThreadTasks(await browser.stopTracing());
    const stormRequests = requests.filter((url) => !url.includes('/api/v1/events'));
    console.info(
      `storm: ${BODIES * PER_BODY} alerts in ${sent} ms; the page made ${stormRequests.length} requests; long tasks (ms): ${longTasks.join(', ') || 'none'}`,
    );
    expect(stormRequests.length, stormRequests.join('\n')).toBeLessThan(100);
    // useLoad reads again at most once a second: the list tab stays far under one per event.
    console.info(`storm: the incidents list tab made ${listRequests.length} requests`);
    expect(listRequests.filter((url) => !url.includes('/api/v1/events')).length).toBeLessThan(100);
    // The page's own work never holds the main thread for 200 ms.
    const busiest = Math.max(0, ...tasks.map((task) => task.cpu));
    console.info(`storm: the busiest main-thread task used ${busiest.toFixed(0)} ms of CPU`);
    expect(busiest).toBeLessThanOrEqual(200);
    // And no long task over 200 ms, unless the trace shows the machine, not the page, made it
    // long: every task over 200 ms of wall time used under 50 ms of the thread's CPU.
    if (Math.max(0, ...longTasks) > 200) {
      const stretched = tasks.filter((task) => task.wall > 200);
      expect(stretched.length).toBeGreaterThan(0);
      expect(stretched.filter((task) => task.cpu >= 50)).toEqual([]);
    }
    expect(counts.open.P0).toBeGreaterThan(0);
    await expect.poll(() => rows.first().getAttribute('data-severity')).toBe('P0');
    expect(await rows.first().textContent()).toContain(`StormOutage${run}`);
    await page.screenshot({ path: '/tmp/shots/triage/storm-1280-light.png' });

    // A tab opened after the storm holds only the first page: another 1,000 alerts on those
    // 700 incidents are about incidents it does not hold, read by id, 100 a call.
    await page.reload();
    await rows.first().waitFor();
    await page.waitForTimeout(2500);
    const again: string[] = [];
    page.on('request', (request) => again.push(request.url()));
    await post(base, stormBody(BODIES));
    await page.waitForTimeout(4000);
    const byIds = again.filter((url) => url.includes('/api/v1/incidents?ids='));
    console.info(
      `storm: a second storm on held and unheld incidents made ${again.length} requests, ${byIds.length} by ids`,
    );
    expect(again.length, again.join('\n')).toBeLessThan(100);
    expect(byIds.length).toBeGreaterThan(0);
    expect(await rows.first().getAttribute('data-severity')).toBe('P0');
    expect(watch.problems).toEqual([]);
    await context.close();
    await listContext.close();
  }, 180_000);
});
