import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, startConsoleService } from './console-browser.js';

/**
 * CONTRACT, Under races, crashes and abuse (Cross-site requests): a page on another origin
 * runs `fetch(url, {method: 'POST', mode: 'no-cors'})` without a body against the service in
 * a real browser. The browser hides the answer from the page, so only the service's own
 * records tell whether the request acted: the heartbeat it names must not exist. The
 * service's own pages (the console) post from its origin and keep acting.
 */

const probe = `csrf-${crypto.randomUUID().slice(0, 8)}`;

/** Serves an empty page on a loopback port, reached as `name`; the test runs its script there. */
async function servePage(name: string): Promise<{ url: string; close(): void }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><title>elsewhere</title><body></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${name}:${port}/`, close: () => server.close() };
}

describe.skipIf(!hasChromium)('a page on another origin fetching the service', () => {
  let browser: Browser;
  let service: string;
  const pages: { close(): void }[] = [];

  beforeAll(async () => {
    [{ url: service }, browser] = await Promise.all([
      startConsoleService({ APP_ENV: 'development' }),
      launchChromium(),
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    for (const page of pages) page.close();
  });

  const heartbeatNames = async (): Promise<string[]> => {
    const list = (await (await fetch(`${service}/api/v1/heartbeats?limit=200`)).json()) as {
      items: { name: string }[];
    };
    return list.items.map((item) => item.name);
  };

  /**
   * Runs the no-cors POST in `page` and waits until the browser is done with it. The
   * service's `Cross-Origin-Resource-Policy` keeps even the opaque answer from the page, so
   * the browser reports a failure whatever the service did.
   */
  async function postNoCors(page: Page, url: string): Promise<void> {
    const done = Promise.race([
      page.waitForEvent('requestfinished', { predicate: (request) => request.url() === url }),
      page.waitForEvent('requestfailed', { predicate: (request) => request.url() === url }),
    ]);
    await page.evaluate(async (target) => {
      await fetch(target, { method: 'POST', mode: 'no-cors' }).catch(() => undefined);
    }, url);
    await done;
  }

  it.each([
    // Another port on the same address: another origin, but the same site.
    ['same-site', '127.0.0.1'],
    ['cross-site', 'localhost'],
  ])('a %s page (%s) creates no heartbeat', async (kind, host) => {
    const elsewhere = await servePage(host);
    pages.push(elsewhere);
    const page = await browser.newPage();
    await page.goto(elsewhere.url);
    const name = `${probe}-${kind}`;
    await postNoCors(page, `${service}/api/v1/heartbeats/${name}`);
    expect(await heartbeatNames()).not.toContain(name);
    await page.close();
  });

  it("the service's own origin still posts (as the console does)", async () => {
    const page = await browser.newPage();
    // A page of the service whose policy lets it fetch its own origin, as the console's does.
    await page.goto(`${service}/docs`);
    const name = `${probe}-same-origin`;
    const answer = await page.evaluate(async (target) => {
      const response = await fetch(target, { method: 'POST' });
      return { status: response.status, body: await response.text() };
    }, `${service}/api/v1/heartbeats/${name}`);
    expect(answer.status, answer.body).toBe(200);
    expect(await heartbeatNames()).toContain(name);
    await page.close();
  });
});
