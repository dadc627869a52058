import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What every view of the console is held to in a browser: no console error, failed request or
 * request to another origin; no sideways scrolling at desktop or phone width; no serious axe
 * finding in either colour scheme.
 */

export const WIDTHS = { desktop: 1280, phone: 390 } as const;
const ARTIFACTS = path.resolve('test-artifacts/console');
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** What a page did wrong: console errors, failed requests, requests to another origin. */
export interface Watch {
  problems: string[];
  /** Answers with these statuses are expected (a 401 before sign-in). */
  allowStatuses: Set<number>;
}

export function watchPage(page: Page, base: string): Watch {
  const watch: Watch = { problems: [], allowStatuses: new Set() };
  const origin = new URL(base).origin;
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    // Chromium logs every non-2xx fetch as a console error; statuses are judged below.
    if (/the server responded with a status of (\d+)/.test(text)) {
      const status = Number(/status of (\d+)/.exec(text)?.[1]);
      if (watch.allowStatuses.has(status)) return;
    }
    watch.problems.push(`console error: ${text}`);
  });
  page.on('pageerror', (error) => watch.problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('data:')) return;
    if (new URL(url).origin !== origin) watch.problems.push(`request to another origin: ${url}`);
  });
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? '';
    // Streams are cut when the page goes away: that is not a failure of the page.
    if (failure.includes('ERR_ABORTED') && /\/(events|agents\/stream\/)/.test(request.url()))
      return;
    watch.problems.push(`request failed: ${request.url()} ${failure}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !watch.allowStatuses.has(response.status())) {
      watch.problems.push(`answer ${response.status()}: ${response.url()}`);
    }
  });
  return watch;
}

/** Screenshots at each width into `dir`, failing when the page scrolls sideways. */
export async function screenshots(page: Page, name: string, dir = ARTIFACTS) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [label, width] of Object.entries(WIDTHS)) {
    await page.setViewportSize({ width, height: label === 'phone' ? 844 : 900 });
    await page.waitForTimeout(150);
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow, `${name} scrolls sideways at ${width}px`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS.desktop, height: 900 });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe in a context that lets its script in (the service's CSP refuses inline scripts). */
export async function axeViolations(
  browser: Browser,
  url: string,
  ready: (page: Page) => Promise<void>,
) {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ bypassCSP: true, colorScheme });
    const page = await context.newPage();
    await page.goto(url);
    await ready(page);
    await page.addScriptTag({ path: axePath });
    const violations = await page.evaluate<AxeViolation[]>(
      // Only violations are read: axe then skips gathering every passed node of every rule.
      "axe.run({ resultTypes: ['violations'] }).then((result) => result.violations)",
    );
    for (const violation of violations) {
      if (violation.impact === 'serious' || violation.impact === 'critical') {
        found.push(
          `${colorScheme}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes
            .map((node) => node.target.join(' '))
            .join(', ')}`,
        );
      }
    }
    await context.close();
  }
  return found;
}
