import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAlert, trackerSignature } from '../errtracker/tracker-delivery.js';
import { tempDir } from '../helpers/backends.js';
import {
  callbackUpdate,
  startTelegramStandIn,
  type TelegramStandIn,
} from '../helpers/telegram-stand-in.js';
import { EXAMPLES_DIR } from '../readbacks/readback-helpers.js';
import {
  buildConsoleIfStale,
  hasChromium,
  launchChromium,
  startConsoleService,
} from './console-browser.js';
import { axeViolations, screenshots, WIDTHS, watchPage } from './console-checks.js';

/**
 * The operator console in a real browser (Debian's chromium driven by
 * playwright-core) against the service started as a process. Screenshots of each view at
 * desktop and phone width go to test-artifacts/console/.
 */

const SECRET = 'console-e2e-webhook-secret';
const TOKEN = 'console-e2e-token';
/** The whitelisted chat user who presses the card's buttons. */
const CHAT_USER = 111;

/** The service with this file's webhook secret and operator. */
async function startService(env: Record<string, string>): Promise<string> {
  return (await startServiceProcess(env)).url;
}

function startServiceProcess(env: Record<string, string>) {
  return startConsoleService({
    WEBHOOK_SECRET: SECRET,
    OPERATOR_KEYS: 'alice:alice-key-0123456789',
    ...env,
  });
}

/** A port free right now, so a restarted service can listen where the page expects it. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function sign(body: string): string {
  return `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
}

async function postAlert(base: string, alert: Record<string, unknown>) {
  const body = JSON.stringify(alert);
  const response = await fetch(`${base}/api/v1/webhooks/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

describe.skipIf(!hasChromium)('the operator console in a browser', () => {
  let browser: Browser;
  let context: BrowserContext;
  let base: string;
  const alert = {
    alert_name: `ConsoleE2E${crypto.randomUUID().slice(0, 8)}`,
    severity: 'warning',
    source: 'prometheus',
    target_resource: 'checkout-7d9f8b6c5-x2x4z',
    namespace: 'shop',
    message: 'Pod is restarting 5 times / 10 minutes',
  };
  let incidentId: string | undefined;

  beforeAll(async () => {
    buildConsoleIfStale();
    [base, browser] = await Promise.all([startService({}), launchChromium()]);
    context = await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('serves the console at /console/ and sends / there', async () => {
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const page = await fetch(`${base}/console/`);
    expect(page.status, 'register consoleRoutes in src/app.ts').toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('shows an alert live on the Now view and its hit count rising', async () => {
    const page = await context.newPage();
    const watch = watchPage(page, base);
    await page.goto(`${base}/`);
    await expect.poll(() => page.url()).toBe(`${base}/console/`);
    await page.getByRole('heading', { name: 'Now', exact: true }).waitFor();
    await page.locator('.connection[data-state="live"]').waitFor();

    const accepted = await postAlert(base, alert);
    const card = page.locator('[data-incident-id]', { hasText: alert.alert_name });
    await card.waitFor({ timeout: 10_000 });
    incidentId = (await card.getAttribute('data-incident-id')) ?? undefined;
    expect(incidentId).toBeTruthy();
    await expect.poll(() => card.locator('.hit-count').textContent()).toBe('1');

    await postAlert(base, alert);
    await expect
      .poll(() => card.locator('.hit-count').textContent(), { timeout: 10_000 })
      .toBe('2');
    expect(accepted).toBeTruthy();
    await screenshots(page, 'now');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshots(page, 'now-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it('has no serious or critical accessibility violation', async () => {
    const now = await axeViolations(browser, `${base}/console/`, async (page) => {
      await page.locator('[data-incident-id]').first().waitFor();
    });
    const analysis = await axeViolations(browser, `${base}/console/#/analysis`, async (page) => {
      await page.getByRole('heading', { name: 'Start an analysis' }).waitFor();
    });
    expect([...now, ...analysis]).toEqual([]);
    // axe over every view in both schemes: seconds alone, more beside the other suites.
  }, 90_000);

  it('approves an approval from its page as a named operator', async () => {
    expect(incidentId).toBeTruthy();
    const incident = (await (await fetch(`${base}/api/v1/incidents/${incidentId}`)).json()) as {
      approval_id: string | null;
    };
    const approvalId = incident.approval_id;
    expect(approvalId).toBeTruthy();
    const page = await context.newPage();
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/#/approvals/${approvalId}`);
    await page.getByRole('heading', { name: 'Decide' }).waitFor();
    await screenshots(page, 'approval');
    const before = (await (await fetch(`${base}/api/v1/approvals/${approvalId}`)).json()) as {
      status: string;
    };
    await page.getByLabel('Operator id').fill('alice');
    await page.getByLabel('Operator key').fill('alice-key-0123456789');
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    if (before.status === 'pending') {
      await page.getByRole('button', { name: 'Approve' }).click();
      await page
        .locator('.timeline li', { hasText: 'console_alice approve via console' })
        .waitFor();
      const after = (await (await fetch(`${base}/api/v1/approvals/${approvalId}`)).json()) as {
        status: string;
        decisions: { actor: string; channel: string }[];
      };
      expect(after.decisions).toContainEqual(
        expect.objectContaining({ actor: 'console_alice', channel: 'console' }),
      );
      await expect.poll(() => page.getByTestId('approval-status').textContent()).toBe(after.status);
    }
    await screenshots(page, 'approval-decided');
    const violations = await axeViolations(
      browser,
      `${base}/console/#/approvals/${approvalId}`,
      async (axePage) => {
        await axePage.getByRole('heading', { name: 'Decide' }).waitFor();
      },
    );
    expect(violations).toEqual([]);
    expect(watch.problems).toEqual([]);
    await page.close();
  });

  it('starts an analysis from the page and streams it to its result', async () => {
    const page = await context.newPage();
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/#/analysis?incident=${incidentId}`);
    await page.getByRole('button', { name: 'Start analysis' }).click();
    await page.getByTestId('analysis-result').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('task-state').textContent()).toBe('COMPLETED');
    await screenshots(page, 'analysis');
    expect(watch.problems).toEqual([]);
    await page.close();
  }, 40_000);

  it('with CONSOLE_TOKEN, asks for the token before anything loads', async () => {
    const guarded = await startService({ CONSOLE_TOKEN: TOKEN });
    const tokenContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await tokenContext.newPage();
    const watch = watchPage(page, guarded);
    watch.allowStatuses.add(401);
    await page.goto(`${guarded}/console/`);
    await page.getByLabel('Console token').waitFor();
    expect(await page.locator('[data-incident-id]').count()).toBe(0);
    await screenshots(page, 'sign-in');
    await page.getByLabel('Console token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Now', exact: true }).waitFor();
    await page.locator('.connection[data-state="live"]').waitFor();
    expect(watch.problems).toEqual([]);
    await tokenContext.close();
  }, 60_000);

  it('shows the feed lost while the service is down and resumes when it is back', async () => {
    const port = String(await freePort());
    const env = { PORT: port, DATA_DIR: tempDir('console-e2e-restart-') };
    const first = await startServiceProcess(env);
    const page = await context.newPage();
    await page.goto(`${first.url}/console/`);
    const indicator = page.locator('.connection');
    await page.locator('.connection[data-state="live"]').waitFor();

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await page.locator('.connection[data-state="reconnecting"]').waitFor({ timeout: 10_000 });
    expect(await indicator.textContent()).toContain('Reconnecting');
    await screenshots(page, 'now-reconnecting');

    const second = await startServiceProcess(env);
    await page.locator('.connection[data-state="live"]').waitFor({ timeout: 20_000 });
    const resumed = { ...alert, alert_name: `${alert.alert_name}Resumed` };
    await postAlert(second.url, resumed);
    await page
      .locator('[data-incident-id]', { hasText: resumed.alert_name })
      .waitFor({ timeout: 10_000 });
    await page.close();
  }, 60_000);

  it('in prod without CONSOLE_TOKEN, says how to set one', async () => {
    const closed = await startService({ APP_ENV: 'prod', CONSOLE_TOKEN: '' });
    const page = await context.newPage();
    const watch = watchPage(page, closed);
    watch.allowStatuses.add(403);
    await page.goto(`${closed}/console/`);
    await page.getByRole('heading', { name: 'Set CONSOLE_TOKEN to use the console' }).waitFor();
    await screenshots(page, 'prod-closed');
    expect(watch.problems).toEqual([]);
    await page.close();
  }, 60_000);
});

/**
 * The views added after the feed: error-tracker deliveries, signals, readbacks with the
 * live-ops scene, inventory; and approvals decided in chat or on the page, seen in both.
 */
describe.skipIf(!hasChromium)(
  'the console views of deliveries, signals, readbacks, inventory',
  () => {
    const TRACKER_SECRET = 'console-e2e-tracker-secret';
    let browser: Browser;
    let context: BrowserContext;
    let base: string;
    let tg: TelegramStandIn;

    const visit = async (hash: string, ready: (page: Page) => Promise<void>) => {
      const page = await context.newPage();
      const watch = watchPage(page, base);
      await page.goto(`${base}/console/${hash}`);
      await ready(page);
      return { page, watch };
    };

    const deliver = async (issueId: string) => {
      const body = JSON.stringify(issueAlert(issueId, { culprit: 'checkout.views.pay' }));
      const response = await fetch(`${base}/api/v1/webhooks/errtracker/error`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'errtracker-hook-signature': trackerSignature(TRACKER_SECRET, body),
        },
        body,
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
    };

    const cardOf = async (approvalId: string) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const call = tg
          .calls('sendMessage')
          .find((sent) =>
            sent.body.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data?.includes(
              `:${approvalId}:`,
            ),
          );
        const data = call?.body.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data;
        if (data) return { nonce: data.split(':')[2] as string };
        if (Date.now() > deadline) throw new Error(`no card for ${approvalId}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    beforeAll(async () => {
      buildConsoleIfStale();
      const readbacks = tempDir('console-e2e-readbacks-');
      for (const file of fs.readdirSync(EXAMPLES_DIR)) {
        fs.copyFileSync(path.join(EXAMPLES_DIR, file), path.join(readbacks, file));
      }
      // one invalid document, so the catalog shows the three states
      fs.writeFileSync(path.join(readbacks, 'ai-technology-radar-readback.json'), '{ not json');
      fs.rmSync(path.join(readbacks, 'ai-agent-market-radar-readback.json'));
      tg = await startTelegramStandIn();
      [base, browser] = await Promise.all([
        startService({
          READBACK_DIR: readbacks,
          ERRTRACKER_CLIENT_SECRET: TRACKER_SECRET,
          CHAT_BOT_TOKEN: tg.token,
          CHAT_CHAT_ID: '4242',
          CHAT_API_BASE: tg.apiBase,
          CHAT_WHITELIST: String(CHAT_USER),
          CHAT_POLLING: 'false',
        }),
        launchChromium(),
      ]);
      context = await browser.newContext({ viewport: { width: WIDTHS.desktop, height: 900 } });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
    });

    it('shows every stage of an error-tracker delivery and links its approval', async () => {
      const issueId = `console-${crypto.randomUUID().slice(0, 8)}`;
      await deliver(issueId);
      await deliver(issueId);
      await expect
        .poll(
          async () => {
            const page = (await (
              await fetch(`${base}/api/v1/external-alert-events?issue_id=${issueId}`)
            ).json()) as { items: { stage: string }[] };
            return page.items.map((item) => item.stage).sort();
          },
          { timeout: 20_000 },
        )
        .toEqual(expect.arrayContaining(['approval_linked', 'deduplicated', 'received']));
      const { page, watch } = await visit('#/deliveries', async (p) => {
        await p.getByRole('heading', { name: 'Error-tracker deliveries' }).waitFor();
      });
      const delivery = page.locator(`[data-delivery="${issueId}"]`);
      await delivery.locator('[data-stage="approval_linked"] a[href^="#/approvals/"]').waitFor();
      await delivery.locator('[data-stage="deduplicated"]').waitFor();
      await screenshots(page, 'deliveries');
      await delivery.locator('[data-stage="received"] button').first().click();
      await delivery.locator('.stage-detail pre').first().waitFor();
      const violations = await axeViolations(browser, `${base}/console/#/deliveries`, async (p) => {
        await p.locator('[data-stage="approval_linked"]').first().waitFor();
      });
      expect(violations).toEqual([]);
      expect(watch.problems).toEqual([]);
      await page.close();
    }, 60_000);

    it('shows the latest signals, how each was handled, and the backlog', async () => {
      const body = JSON.stringify({
        source: 'prometheus',
        alert_name: `ConsoleSignal${crypto.randomUUID().slice(0, 6)}`,
        severity: 'warning',
        namespace: 'shop',
        target: 'checkout-7d9f8b6c5-x2x4z',
        message: 'queued for the consumer',
      });
      const response = await fetch(`${base}/api/v1/webhooks/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
        body,
      });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
      const { page, watch } = await visit('#/signals', async (p) => {
        await p.getByRole('heading', { name: 'Signals' }).waitFor();
      });
      await page.locator('[data-signal-id]').first().waitFor();
      await expect.poll(() => page.getByTestId('signals-backlog').textContent()).not.toBe('–');
      await screenshots(page, 'signals');
      const violations = await axeViolations(browser, `${base}/console/#/signals`, async (p) => {
        await p.locator('[data-signal-id]').first().waitFor();
      });
      expect(violations).toEqual([]);
      expect(watch.problems).toEqual([]);
      await page.close();
    }, 60_000);

    it('lists the readback catalog and shows a document with its redacted values', async () => {
      const { page, watch } = await visit('#/readbacks', async (p) => {
        await p.getByRole('heading', { name: 'Readbacks' }).waitFor();
      });
      // One request for the whole catalog: no readback is fetched, so no 404 or 500 either.
      expect(watch.problems).toEqual([]);
      await expect
        .poll(() => page.getByTestId('catalog-counts').textContent(), { timeout: 30_000 })
        .not.toContain('checking');
      const counts = (await page.getByTestId('catalog-counts').textContent()) ?? '';
      expect(counts).toMatch(/[1-9]\d* present/);
      expect(counts).toMatch(/[1-9]\d* invalid/);
      expect(counts).toMatch(/[1-9]\d* missing/);
      await expect(
        page.locator('[data-readback="ai-agent-market-radar-readback"] .badge').textContent(),
      ).resolves.toBe('missing');
      await expect(
        page.locator('[data-readback="ai-technology-radar-readback"] .badge').textContent(),
      ).resolves.toBe('invalid');
      await screenshots(page, 'readbacks');
      const violations = await axeViolations(browser, `${base}/console/#/readbacks`, async (p) => {
        await p.locator('[data-readback]').first().waitFor();
      });
      expect(violations).toEqual([]);

      await page.goto(`${base}/console/#/readbacks/automation-inventory-snapshot`);
      const redacted = page
        .locator('[data-testid="readback-document"] mark.redacted', { hasText: '[redacted-ip]' })
        .first();
      await redacted.waitFor();
      expect(await page.getByTestId('readback-document').textContent()).not.toContain('10.20.0.15');
      await screenshots(page, 'readback-document');
      const documentViolations = await axeViolations(
        browser,
        `${base}/console/#/readbacks/automation-inventory-snapshot`,
        async (p) => {
          await p.locator('mark.redacted').first().waitFor();
        },
      );
      expect(documentViolations).toEqual([]);
      expect(watch.problems).toEqual([]);
      await page.close();
    }, 90_000);

    it('draws the live-ops scene as an animation', async () => {
      const { page, watch } = await visit('#/scene', async (p) => {
        await p.getByTestId('scene').waitFor();
      });
      const intake = page.locator('[data-actor="intake"]');
      const first = await intake.getAttribute('transform');
      await page.waitForTimeout(400);
      const second = await intake.getAttribute('transform');
      expect(second).not.toBe(first);
      await screenshots(page, 'scene');
      const violations = await axeViolations(browser, `${base}/console/#/scene`, async (p) => {
        await p.getByTestId('scene').waitFor();
      });
      expect(violations).toEqual([]);
      expect(watch.problems).toEqual([]);

      const still = await browser.newContext({ reducedMotion: 'reduce' });
      const stillPage = await still.newPage();
      await stillPage.goto(`${base}/console/#/scene`);
      await stillPage.getByTestId('scene').waitFor();
      await stillPage.waitForTimeout(100);
      const a = await stillPage.locator('[data-actor="intake"]').getAttribute('transform');
      await stillPage.waitForTimeout(400);
      expect(await stillPage.locator('[data-actor="intake"]').getAttribute('transform')).toBe(a);
      await still.close();
      await page.close();
    }, 60_000);

    it('shows the package inventory with its drift findings', async () => {
      const { page, watch } = await visit('#/inventory', async (p) => {
        await p.getByTestId('drift-status').waitFor({ timeout: 20_000 });
      });
      await page.locator('[data-workspace]').first().waitFor();
      await screenshots(page, 'inventory');
      const violations = await axeViolations(browser, `${base}/console/#/inventory`, async (p) => {
        await p.getByTestId('drift-status').waitFor({ timeout: 20_000 });
      });
      expect(violations).toEqual([]);
      expect(watch.problems).toEqual([]);
      await page.close();
    }, 60_000);

    it('shows an approval approved in chat without reload, and edits the card for one approved on the page', async () => {
      const openApproval = async (name: string, namespace: string) => {
        const created = await postAlert(base, {
          alert_name: name,
          severity: 'warning',
          source: 'prometheus',
          target_resource: `cart-6b8f9c7d5-${crypto.randomUUID().slice(0, 5)}`,
          namespace,
          message: 'CrashLoopBackOff',
        });
        return created.approval_id as string;
      };

      const inChat = await openApproval('KubePodCrashLooping', 'chat-decided');
      const card = await cardOf(inChat);
      const { page, watch } = await visit(`#/approvals/${inChat}`, async (p) => {
        await p.getByRole('heading', { name: 'Decide', exact: true }).waitFor();
      });
      expect(await page.getByTestId('approval-status').textContent()).toBe('pending');
      const pressed = await fetch(`${base}/api/v1/chatops/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          update_id: 1,
          ...callbackUpdate({ data: `approve:${inChat}:${card.nonce}`, userId: CHAT_USER }),
        }),
      });
      expect(pressed.status).toBe(200);
      await expect
        .poll(() => page.getByTestId('approval-status').textContent(), { timeout: 10_000 })
        .not.toBe('pending');
      await page.locator('.timeline li', { hasText: 'via chat' }).first().waitFor();
      await screenshots(page, 'approval-chat-decided');

      const onPage = await openApproval('KubePodCrashLooping', 'page-decided');
      await cardOf(onPage);
      await page.goto(`${base}/console/#/approvals/${onPage}`);
      await page.getByRole('heading', { name: 'Decide', exact: true }).waitFor();
      await page.getByLabel('Operator id').fill('alice');
      await page.getByLabel('Operator key').fill('alice-key-0123456789');
      await page.getByRole('button', { name: 'Sign in as operator' }).click();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page
        .locator('.timeline li', { hasText: 'console_alice approve via console' })
        .waitFor();
      await expect
        .poll(
          () =>
            tg
              .calls('editMessageText')
              .some((call) => (call.body.text ?? '').includes('console_alice')),
          { timeout: 10_000 },
        )
        .toBe(true);
      expect(watch.problems).toEqual([]);
      await page.close();
    }, 60_000);
  },
);
