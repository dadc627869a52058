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
  ALICE,
  BOB,
  decide,
  getJson,
  OPERATOR_KEYS,
  postAlertmanager,
  SECRET,
  shortId,
  signIn,
} from './pages-fixtures.js';

/**
 * The console at the moment of decision: a wrong operator key is refused at
 * sign-in; the headline names the action and the incident; a critical approval asks for a
 * confirmation naming its action (Escape cancels); a first signature says who else must sign
 * and the count survives live updates; a second press by the same operator says that a
 * different one must sign; a dry run says that nothing was changed, in a neutral style.
 */

const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots/pages';

interface Approval {
  status: string;
  action: string;
  decisions: { actor: string }[];
}

describe.skipIf(!hasChromium)('deciding an approval in the console', () => {
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    buildConsoleIfStale();
    let service: { url: string };
    [service, browser] = await Promise.all([
      startConsoleService({ WEBHOOK_SECRET: SECRET, OPERATOR_KEYS }),
      launchChromium(),
    ]);
    base = service.url;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  /**
   * A P0 incident: its approval is critical and needs two signers. A crash loop matches a
   * playbook, which the dry-run executor (the default) records without running.
   */
  async function criticalApproval(alertName = `PaymentsDown${shortId()}`, namespace = 'payments') {
    const created = await postAlertmanager(base, {
      labels: {
        alertname: alertName,
        severity: 'P0',
        namespace,
        pod: `gateway-${shortId()}-abcde`,
      },
      annotations: { summary: 'payments gateway answers 503' },
    });
    expect(created.approval_id).toBeTruthy();
    const id = created.approval_id as string;
    const approval = await getJson<Approval & { risk_level: string }>(
      base,
      `/api/v1/approvals/${id}`,
    );
    expect(approval.risk_level).toBe('critical');
    return { id, alertName, action: approval.action };
  }

  async function open(hash: string, width: number = WIDTHS.desktop) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const watch = watchPage(page, base);
    await page.goto(`${base}/console/${hash}`);
    await page.getByRole('heading', { name: 'Decide' }).waitFor();
    return { page, watch };
  }

  const done = async ({ page, watch }: { page: Page; watch: Watch }) => {
    expect(watch.problems).toEqual([]);
    await page.context().close();
  };

  it('refuses a wrong operator key at sign-in, in the service words, and keeps nothing', async () => {
    const { id } = await criticalApproval();
    const visit = await open(`#/approvals/${id}`);
    const { page, watch } = visit;
    watch.allowStatuses.add(401);
    await signIn(page, { id: ALICE.id, key: 'not-the-key-of-alice' });
    const refused = page.getByTestId('sign-in-refused');
    await refused.waitFor();
    expect(await refused.textContent()).toBe('Sign-in refused: Invalid operator credentials');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(
      await page.evaluate<string | null>("sessionStorage.getItem('console-operator')"),
    ).toBeNull();

    await signIn(page, ALICE);
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await page.getByText('Signed in as operator').textContent()).toContain('alice');
    await done(visit);
  });

  it('names the action and the incident in the headline', async () => {
    const { id, alertName, action } = await criticalApproval();
    const visit = await open(`#/approvals/${id}`);
    const headline = await visit.page.locator('h1').textContent();
    expect(headline).toContain(action);
    expect(headline).toContain(`for ${alertName} in payments`);
    expect(headline).not.toContain(id);
    await done(visit);
  });

  it('asks before approving a critical action; Escape cancels, and nothing is signed', async () => {
    const { id, action } = await criticalApproval();
    const visit = await open(`#/approvals/${id}`);
    const { page } = visit;
    await signIn(page, ALICE);
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve a critical action?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`Approve the critical action ${action}?`);
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe(
      'Cancel',
    );
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe(
      'Approve',
    );
    const after = await getJson<Approval>(base, `/api/v1/approvals/${id}`);
    expect(after).toMatchObject({ status: 'pending', decisions: [] });
    await done(visit);
  });

  it('says that a first signature counts, keeps the count after live updates, explains a second press, and shows the dry run', async () => {
    const { id } = await criticalApproval('KubePodCrashLooping', `payments-${shortId()}`);
    const visit = await open(`#/approvals/${id}`);
    const { page, watch } = visit;
    watch.allowStatuses.add(409);
    await page.locator('.connection[data-state="live"]').waitFor();
    await signIn(page, ALICE);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Yes, approve' }).click();
    const message = page.getByTestId('decision-message');
    await expect
      .poll(() => message.textContent())
      .toBe('Your signature counts: 1 of 2 signers. Another operator must sign to approve.');
    const progress = page.getByTestId('signer-progress');
    await expect.poll(() => progress.textContent()).toBe('1 of 2 signers: console_alice');

    // A second press by the same operator: the service refuses it, the page says why.
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Yes, approve' }).click();
    await expect
      .poll(() => message.textContent())
      .toBe(
        'Already signed by console_alice: your signature counts once. A different operator must sign to approve.',
      );
    expect(await progress.textContent()).toBe('1 of 2 signers: console_alice');

    // Bob signs from elsewhere: the page hears it from the feed, and the dry run is said plainly.
    expect((await decide(base, id, BOB, 'approve')).status).toBe(200);
    await expect
      .poll(() => progress.textContent(), { timeout: 10_000 })
      .toBe('2 of 2 signers: console_alice, console_bob');
    const dryRun = page.getByTestId('approval-dry-run');
    await dryRun.waitFor({ timeout: 10_000 });
    expect(await dryRun.textContent()).toContain('dry run: nothing was changed');
    const status = page.getByTestId('approval-status');
    await expect.poll(() => status.textContent()).toBe('executed');
    expect(await status.getAttribute('class')).toBe('badge status-neutral');
    // The neutral badge is not the green of a change made: compared as the browser draws them.
    const colourOf = (className: string) =>
      page.evaluate<string>(
        `(() => { const probe = document.createElement('span'); probe.className = ${JSON.stringify(className)}; document.body.append(probe); const colour = getComputedStyle(probe).color; probe.remove(); return colour; })()`,
      );
    const colours = await colourOf('badge status-neutral');
    const okColour = await colourOf('badge status-executed');
    expect(colours).not.toBe(okColour);
    await screenshots(page, 'approval', SHOTS);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshots(page, 'approval-dark', SHOTS);
    await done(visit);
  }, 60_000);

  it('keeps the signer count when the feed reports a signature made elsewhere', async () => {
    const { id } = await criticalApproval();
    const visit = await open(`#/approvals/${id}`, WIDTHS.phone);
    const { page } = visit;
    await page.locator('.connection[data-state="live"]').waitFor();
    const progress = page.getByTestId('signer-progress');
    await expect.poll(() => progress.textContent()).toBe('0 of 2 signers');
    expect((await decide(base, id, ALICE, 'approve')).status).toBe(200);
    // Only the feed tells the page: the decision appears, and the count with it.
    await page.locator('.timeline li', { hasText: 'console_alice' }).waitFor({ timeout: 10_000 });
    expect(await progress.textContent()).toBe('1 of 2 signers: console_alice');
    await done(visit);
  });

  it('has no serious accessibility finding on a critical approval, its dialog open', async () => {
    const { id } = await criticalApproval();
    const found = await axeViolations(
      browser,
      `${base}/console/#/approvals/${id}`,
      async (page) => {
        await page.getByRole('heading', { name: 'Decide' }).waitFor();
        await signIn(page, BOB);
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.getByRole('dialog').waitFor();
      },
    );
    expect(found).toEqual([]);
  });
});
