import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CardSender, HitCountEdit } from '../../src/features/cards/card-types.js';
import {
  createHitCountRefresher,
  HIT_COUNT_EDIT_INTERVAL_MS,
} from '../../src/features/cards/hit-count-refresher.js';
import { cardFor, chatEnv, openIncidentCard } from '../chat/chat-flow.js';
import { type Backend, backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * CONTRACT, Chat under storms: "Edits that only raise a card's hit count are sent at most
 * once a minute per card and never ahead of a waiting new card."
 */

/** A card sender that records the refresher's edits; `idle` is held until released. */
function recordingCards(outcomes: HitCountEdit[] = []) {
  const edits: Array<{ approvalId: string; hitCount: number; at: number }> = [];
  let release: () => void = () => undefined;
  let idle: Promise<void> = Promise.resolve();
  const unused = () => Promise.reject(new Error('not used by the refresher'));
  const cards: CardSender = {
    push: unused,
    resendCutOff: unused,
    pushOnRequest: unused,
    pushClosedOnRequest: unused,
    pushClosed: unused,
    pushTestCard: unused,
    markDecided: unused,
    refreshHitCount: unused,
    async editHitCount(approvalId, hitCount) {
      edits.push({ approvalId, hitCount, at: Date.now() });
      return outcomes.shift() ?? 'edited';
    },
    idle: () => idle,
    close: () => undefined,
  };
  return {
    cards,
    edits,
    holdIdle() {
      idle = new Promise((resolve) => {
        release = resolve;
      });
    },
    releaseIdle: () => release(),
  };
}

describe('hit-count refresher', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T01:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('edits each card at most once a minute, with its latest count', async () => {
    const recording = recordingCards();
    const refresher = createHitCountRefresher(recording.cards);
    for (let second = 0; second < 200; second += 1) {
      refresher.note('a', second + 2);
      if (second % 10 === 0) refresher.note('b', second + 2);
      await vi.advanceTimersByTimeAsync(1000);
    }
    for (const card of ['a', 'b']) {
      const edits = recording.edits.filter((edit) => edit.approvalId === card);
      expect(edits.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < edits.length; i += 1) {
        expect(edits[i]!.at - edits[i - 1]!.at).toBeGreaterThanOrEqual(HIT_COUNT_EDIT_INTERVAL_MS);
        expect(edits[i]!.hitCount).toBeGreaterThan(edits[i - 1]!.hitCount);
      }
    }
    // The first edit comes a few seconds after the first hit, not a minute.
    expect(recording.edits[0]!.at - Date.parse('2026-11-22T01:00:00Z')).toBeLessThan(10_000);
  });

  it('waits while a new card waits, then sends the latest count', async () => {
    const recording = recordingCards();
    recording.holdIdle();
    const refresher = createHitCountRefresher(recording.cards);
    refresher.note('a', 2);
    refresher.note('a', 5);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(recording.edits).toEqual([]);
    refresher.note('a', 9);
    recording.releaseIdle();
    await vi.advanceTimersByTimeAsync(0);
    expect(recording.edits.map((edit) => edit.hitCount)).toEqual([9]);
  });

  it('tries a deferred edit again later, and at shutdown sends only what is due', async () => {
    const recording = recordingCards(['deferred', 'edited']);
    const refresher = createHitCountRefresher(recording.cards);
    refresher.note('a', 3);
    await vi.advanceTimersByTimeAsync(5_000);
    refresher.note('a', 4);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(recording.edits.map((edit) => edit.hitCount)).toEqual([3, 4]);
    refresher.note('a', 6);
    refresher.note('c', 2);
    await refresher.flushAll();
    // 'a' was edited within the minute; 'c' never was.
    expect(recording.edits.map((edit) => [edit.approvalId, edit.hitCount])).toEqual([
      ['a', 3],
      ['a', 4],
      ['c', 2],
    ]);
  });
});

describe.each(backends())('hit counts in a chat that answers 429, on %s', (backend: Backend) => {
  let tg: TelegramStandIn;
  let app: FastifyInstance;
  const alert = (target: string) => ({
    alert_name: 'KubePodCrashLooping',
    severity: 'warning',
    namespace: 'hits',
    target_resource: target,
  });

  beforeEach(async () => {
    tg = await startTelegramStandIn();
    ({ app } = await buildTestApp({ backend, env: chatEnv(tg) }));
  });

  it('edits a card once, after the card that waited, and not again within the minute', async () => {
    const first = await openIncidentCard(app, tg, alert('svca'));
    // The next card gets a 429 whose wait outlasts the refresher's first delay (5 s).
    tg.rateLimitNext(7);
    const opened = (await postSigned(app, '/api/v1/webhooks/alerts', alert('svcb'))).json();
    await waitFor(async () => (tg.rateLimited() > 0 ? true : undefined), { what: 'the 429' });
    for (let i = 0; i < 10; i += 1) await postSigned(app, '/api/v1/webhooks/alerts', alert('svca'));

    const waited = await cardFor(app, tg, opened.approval_id);
    const edit = await waitFor(
      async () =>
        tg
          .calls('editMessageText')
          .find((call) => call.status === 200 && call.body.message_id === first.messageId),
      { timeoutMs: 15_000, what: 'the hit-count edit' },
    );
    const sentWaited = tg
      .calls('sendMessage')
      .find((call) => call.status === 200 && call.body.text === waited.text);
    expect(edit.at).toBeGreaterThan(sentWaited!.at);
    expect(edit.body.text).toContain('[x11]');

    for (let i = 0; i < 5; i += 1) await postSigned(app, '/api/v1/webhooks/alerts', alert('svca'));
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    await app.close();
    expect(tg.calls('editMessageText')).toHaveLength(1);
    expect(tg.calls().filter((call) => call.duringWait)).toEqual([]);
  }, 40_000);
});
