import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, startConsoleService } from './console-browser.js';

/**
 * CONTRACT, Hostile clients: "a POST carrying a form or plain-text content type is refused
 * with 415 on every route that is not protected by a configured secret or token, so that a
 * web page cannot post to a service that runs without secrets." A page on another origin
 * submits HTML forms to the service (running without WEBHOOK_SECRET) in a real browser; the
 * text/plain form uses the classic trick whose body is a valid JSON alert.
 */

const probe = `CrossSite${crypto.randomUUID().slice(0, 6)}`;

/** An input whose `name=value` (text/plain) is `{"...","a":"="}`: a JSON object. */
function jsonTrick(fields: Record<string, string>): { name: string; value: string } {
  const json = JSON.stringify({ ...fields, a: '' });
  return { name: json.slice(0, -2), value: '"}' };
}

interface Attack {
  id: string;
  enctype: 'text/plain' | 'application/x-www-form-urlencoded' | 'multipart/form-data';
  path: string;
  input: { name: string; value: string };
}

const alertFields = (name: string) => ({
  alert_name: name,
  severity: 'critical',
  source: 'prometheus',
  target_resource: 'checkout-7d9f8b6c5-x2x4z',
  namespace: 'shop',
});
const signalFields = (name: string) => ({
  source: 'prometheus',
  alert_name: name,
  severity: 'critical',
  namespace: 'shop',
  target: 'checkout-7d9f8b6c5-x2x4z',
});

const ATTACKS: Attack[] = [
  {
    id: 'plain-alert',
    enctype: 'text/plain',
    path: '/api/v1/webhooks/alerts',
    input: jsonTrick(alertFields(`${probe}PlainAlert`)),
  },
  {
    id: 'urlencoded-signal',
    enctype: 'application/x-www-form-urlencoded',
    path: '/api/v1/webhooks/signals',
    input: jsonTrick(signalFields(`${probe}FormSignal`)),
  },
  {
    id: 'plain-signal',
    enctype: 'text/plain',
    path: '/api/v1/webhooks/signals',
    input: jsonTrick(signalFields(`${probe}PlainSignal`)),
  },
  {
    id: 'multipart-alert',
    enctype: 'multipart/form-data',
    path: '/api/v1/webhooks/alerts',
    input: jsonTrick(alertFields(`${probe}MultipartAlert`)),
  },
];

const attribute = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll("'", '&#39;').replaceAll('<', '&lt;');

/** The hostile page: one form per attack, each posting straight to the service. */
function hostilePage(service: string): string {
  const forms = ATTACKS.map(
    (attack) =>
      `<form id="${attack.id}" method="post" enctype="${attack.enctype}" action="${service}${attack.path}">` +
      `<input type="hidden" name='${attribute(attack.input.name)}' value='${attribute(attack.input.value)}'>` +
      `<button type="submit">${attack.id}</button></form>`,
  );
  return `<!doctype html><html lang="en"><title>elsewhere</title><body>${forms.join('')}</body></html>`;
}

describe.skipIf(!hasChromium)('a web page on another origin posting forms to the service', () => {
  let browser: Browser;
  let service: string;
  let elsewhere: http.Server;
  let pageUrl: string;

  beforeAll(async () => {
    // No secret configured, and not prod: the webhooks would take unsigned JSON.
    [{ url: service }, browser] = await Promise.all([
      startConsoleService({
        APP_ENV: 'development',
        WEBHOOK_SECRET: '',
        WEBHOOK_SECRET_PREVIOUS: '',
      }),
      launchChromium(),
    ]);
    elsewhere = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(hostilePage(service));
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    // `localhost`, not 127.0.0.1: another site than the service's, as a hostile page would be.
    pageUrl = `http://localhost:${(elsewhere.address() as AddressInfo).port}/`;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
  });

  /** Submits one form and returns the service's answer (or why the browser got none). */
  async function submit(page: Page, attack: Attack): Promise<Response> {
    await page.goto(pageUrl);
    const target = `${service}${attack.path}`;
    const answered = page.waitForResponse(
      (response) => response.url() === target && response.request().method() === 'POST',
      { timeout: 10_000 },
    );
    const failed = page
      .waitForEvent('requestfailed', { predicate: (request) => request.url() === target })
      .then((request) => {
        throw new Error(`the browser got no answer: ${request.failure()?.errorText}`);
      });
    const outcome = Promise.race([answered, failed]);
    // Settled or not, the page closes after the test: its waits then reject, unobserved.
    outcome.catch(() => {});
    await page.locator(`#${attack.id} button`).click();
    return outcome;
  }

  // CONTRACT, Under races, crashes and abuse (Cross-site requests): the browser says the form
  // is another site's, and that refusal (403) comes before the content type's (415).
  it.each(ATTACKS)('$enctype to $path is refused', async (attack) => {
    const page = await browser.newPage();
    const response = await submit(page, attack);
    const sent = response.request().headers()['content-type'] ?? '';
    expect(sent.split(';')[0]).toBe(attack.enctype);
    expect(response.status(), await response.text().catch(() => '')).toBe(403);
    await page.close();
  });

  it('recorded no incident and no signal from the page', async () => {
    // The read API shows what an unsigned JSON post records: the absence below means something.
    const control = await fetch(`${service}/api/v1/webhooks/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Its own target, so it opens an incident of its own rather than joining one.
      body: JSON.stringify({ ...alertFields(`${probe}Control`), target_resource: 'control-0' }),
    });
    expect(control.status, await control.clone().text()).toBeLessThan(300);
    const incidents = (await (await fetch(`${service}/api/v1/incidents?limit=200`)).json()) as {
      items: { alert_name: string }[];
    };
    const signals = (await (await fetch(`${service}/api/v1/signals?limit=200`)).json()) as {
      items: { alert_name: string }[];
    };
    const names = [...incidents.items, ...signals.items].map((item) => item.alert_name);
    expect(names).toContain(`${probe}Control`);
    expect(names.filter((name) => name.startsWith(probe) && name !== `${probe}Control`)).toEqual(
      [],
    );
  });
});
