import crypto from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildConsoleIfStale,
  hasChromium,
  launchChromium,
  startConsoleService,
} from './console-browser.js';

/**
 * CONTRACT, Hostile clients: "The console shows every text from outside isolated from its
 * surroundings (bidirectional overrides such as U+202E cannot reorder the page's own text)."
 * An alert and a signal carry RIGHT-TO-LEFT OVERRIDE in their name, target and message; every
 * place the console shows them must hold that text in an isolating element, and the page's
 * own words in the same paragraph must still run left to right.
 */

/**
 * A pop of the directional isolate (U+2069) first, to close the isolation the console puts
 * around outside text, then the override: the console must show both as text, not obey them.
 */
const RLO = '\u2069\u202E';
/** How the console shows the override once neutralised. */
const SHOWN = '[U+202E]';
const SECRET = 'bidi-e2e-webhook-secret';
const probe = crypto.randomUUID().slice(0, 6);
const alert = {
  alert_name: `BidiProbe${probe}${RLO}emanTrela`,
  severity: 'warning',
  source: 'prometheus',
  target_resource: `bell${RLO}ltr/nul`,
  namespace: 'shop',
  message: `disk${RLO} lluf si`,
};

interface Place {
  where: string;
  isolatedBy: string | null;
  unicodeBidi: string | null;
}

interface Findings {
  places: Place[];
  /** Each of the page's own words checked in a paragraph holding outside text, by place. */
  ownWords: string[];
  problems: string[];
}

/**
 * Runs in the page. For every text node holding the override: the nearest element between it
 * and its block that isolates (`unicode-bidi` isolate, isolate-override or plaintext), or the
 * override enclosed in FSI…PDI where no element can go (an option). Then, in each such block,
 * every word of text that is not isolated must be laid out with its letters left to right.
 */
const FIND_ISOLATION = `(mark) => {
  const ISOLATING = new Set(['isolate', 'isolate-override', 'plaintext']);
  const inline = (el) => getComputedStyle(el).display.startsWith('inline');
  const blockOf = (node) => {
    let el = node.parentElement;
    while (el && inline(el)) el = el.parentElement;
    return el;
  };
  const isolatedBy = (node, block) => {
    for (let el = node.parentElement; el && el !== block; el = el.parentElement) {
      if (ISOLATING.has(getComputedStyle(el).unicodeBidi)) return el;
    }
    return null;
  };
  const textNodes = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    return nodes;
  };
  const describe = (el) => el.tagName.toLowerCase() + (el.className ? '.' + el.className.split(' ').join('.') : '');
  const letterBoxes = (node, from, to) => {
    const boxes = [];
    for (let i = from; i < to; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      boxes.push(range.getBoundingClientRect());
    }
    return boxes;
  };
  const places = [];
  const ownWords = [];
  const problems = [];
  const blocks = new Map();
  for (const node of textNodes(document.body).filter((n) => n.data.includes(mark))) {
    const block = blockOf(node);
    const where = describe(block);
    const by = isolatedBy(node, block);
    const inString = !node.data.replace(/\\u2068[^\\u2068\\u2069]*\\u2069/g, '').includes(mark);
    if (!by && !inString) problems.push('not isolated in ' + where + ': ' + JSON.stringify(node.data));
    places.push({
      where,
      isolatedBy: by ? describe(by) : inString ? 'FSI…PDI' : null,
      unicodeBidi: by ? getComputedStyle(by).unicodeBidi : null,
    });
    blocks.set(block, where);
  }
  for (const [block, where] of blocks) {
    for (const node of textNodes(block)) {
      if (node.data.includes(mark) || isolatedBy(node, block)) continue;
      for (const word of node.data.matchAll(/[A-Za-z]{2,}/g)) {
        const boxes = letterBoxes(node, word.index, word.index + word[0].length);
        // Not laid out (a closed <details>): nothing on screen to reorder.
        if (boxes.some((box) => box.width === 0)) continue;
        ownWords.push(where + ': ' + word[0]);
        if (boxes.some((box, i) => i > 0 && box.left < boxes[i - 1].left)) {
          problems.push('own word ' + JSON.stringify(word[0]) + ' reordered in ' + where);
        }
      }
    }
  }
  return { places, ownWords, problems };
}`;

function findIsolation(page: Page): Promise<Findings> {
  return page.evaluate<Findings>(`(${FIND_ISOLATION})(${JSON.stringify(SHOWN)})`);
}

function sign(body: string): string {
  return `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
}

async function postSigned(url: string, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
    body,
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

describe.skipIf(!hasChromium)('outside text in the console is bidi-isolated', () => {
  let browser: Browser;
  let base: string;
  let approvalId: string;

  beforeAll(async () => {
    buildConsoleIfStale();
    let service: { url: string };
    [service, browser] = await Promise.all([
      startConsoleService({ WEBHOOK_SECRET: SECRET }),
      launchChromium(),
    ]);
    base = service.url;
    const created = await postSigned(`${base}/api/v1/webhooks/alerts`, alert);
    approvalId = created.approval_id as string;
    await postSigned(`${base}/api/v1/webhooks/signals`, {
      source: 'prometheus',
      alert_name: alert.alert_name,
      severity: 'warning',
      namespace: 'shop',
      target: alert.target_resource,
      message: alert.message,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  const visit = async (hash: string, ready: (page: Page) => Promise<unknown>) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/console/${hash}`);
    await ready(page);
    return page;
  };

  it('on the incidents list: the incident cards, and the words after the target', async () => {
    const page = await visit('#/incidents', (p) =>
      p.locator('[data-incident-id]', { hasText: `BidiProbe${probe}` }).waitFor(),
    );
    const found = await findIsolation(page);
    expect(found.problems).toEqual([]);
    const wheres = found.places.map((place) => place.where);
    expect(wheres).toEqual(expect.arrayContaining(['p.card-title', 'p.meta']));
    expect(found.places.every((place) => place.unicodeBidi === 'isolate')).toBe(true);
    // The line "shop/bell‮ltr/nul · <type> · first 0s ago" is where an override would show.
    expect(found.ownWords).toEqual(expect.arrayContaining(['p.meta: first', 'p.meta: ago']));
    await page.close();
  });

  it("on the Now view: the incident's row, and the approval headline's words around its name", async () => {
    const page = await visit('#/', (p) =>
      p.locator('[data-approval-id]', { hasText: `BidiProbe${probe}` }).waitFor(),
    );
    const found = await findIsolation(page);
    expect(found.problems).toEqual([]);
    const wheres = found.places.map((place) => place.where);
    expect(wheres).toEqual(
      expect.arrayContaining(['span.row-name', 'span.row-where', 'span.waiting-headline']),
    );
    expect(found.places.every((place) => place.unicodeBidi === 'isolate')).toBe(true);
    // "<action> for <alert name> in shop": the words after the name are where it would show.
    expect(found.ownWords).toEqual(
      expect.arrayContaining(['span.waiting-headline: for', 'span.waiting-headline: in']),
    );
    await page.close();
  });

  it('on the approval page: its action and description', async () => {
    expect(approvalId).toBeTruthy();
    const page = await visit(`#/approvals/${approvalId}`, (p) =>
      p.getByRole('heading', { name: 'Decide', exact: true }).waitFor(),
    );
    const found = await findIsolation(page);
    expect(found.problems).toEqual([]);
    expect(found.places.map((place) => place.where)).toEqual(
      // The action leads the page's headline, the incident's names after it.
      expect.arrayContaining(['h1.approval-headline', 'span.where', 'p.pre']),
    );
    expect(found.places.every((place) => place.unicodeBidi === 'isolate')).toBe(true);
    await page.close();
  });

  it('on the signals page: the signal name, target and message', async () => {
    const page = await visit('#/signals', (p) =>
      p.locator('[data-signal-id]', { hasText: `BidiProbe${probe}` }).waitFor(),
    );
    const found = await findIsolation(page);
    expect(found.problems).toEqual([]);
    expect(found.places.length).toBeGreaterThanOrEqual(3);
    expect(found.places.every((place) => place.unicodeBidi === 'isolate')).toBe(true);
    await page.close();
  });
});
