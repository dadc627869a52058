import { describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import { chatEnv } from './chat-flow.js';

const TTL_MS = 1_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Replica {
  test: TestApp;
  /** Each replica talks to its own Bot API stand-in, so the test sees which one polls. */
  tg: TelegramStandIn;
}

/** Two replicas on one PostgreSQL and one Redis (a key prefix of this test's own). */
async function twoReplicas(): Promise<[Replica, Replica]> {
  const tgA = await startTelegramStandIn({ maxLongPollMs: 100 });
  const tgB = await startTelegramStandIn({ maxLongPollMs: 100 });
  const a = await buildTestApp({
    backend: 'distributed',
    env: chatEnv(tgA, { CHAT_POLLING: 'true' }),
    leaseTtlMs: TTL_MS,
  });
  const b = await buildTestApp({
    reuse: a,
    env: chatEnv(tgB, { CHAT_POLLING: 'true' }),
    leaseTtlMs: TTL_MS,
  });
  return [
    { test: a, tg: tgA },
    { test: b, tg: tgB },
  ];
}

const polls = (replica: Replica) => replica.tg.calls('getUpdates').length;
const pollingActive = async (replica: Replica) =>
  (await replica.test.app.inject('/api/v1/chatops/health')).json().polling_active as boolean;

/** Waits until exactly one replica polls; returns [holder, other]. */
async function holderOf(replicas: [Replica, Replica]): Promise<[Replica, Replica]> {
  const holder = await waitFor(async () => replicas.find((replica) => polls(replica) > 0));
  return holder === replicas[0] ? replicas : [replicas[1], replicas[0]];
}

/** Waits until `replica` polls, and says how long that took. */
async function takeoverMs(replica: Replica, since: number): Promise<number> {
  const before = polls(replica);
  await waitFor(async () => (polls(replica) > before ? true : undefined), { timeoutMs: 10_000 });
  return Date.now() - since;
}

describe.skipIf(!backends().includes('distributed'))('chat polling lease on Redis', () => {
  it('only one of two replicas calls getUpdates, and only it reports polling_active', async () => {
    const [holder, other] = await holderOf(await twoReplicas());
    // Two lease lifetimes: the holder renews, the other keeps retrying and never polls.
    await sleep(2 * TTL_MS);
    expect(polls(holder)).toBeGreaterThan(1);
    expect(polls(other)).toBe(0);
    expect(await pollingActive(holder)).toBe(true);
    expect(await pollingActive(other)).toBe(false);
  });

  it('a replica that stops hands the lease over at once', async () => {
    const [holder, other] = await holderOf(await twoReplicas());
    const closedAt = Date.now();
    await holder.test.close();
    expect(await takeoverMs(other, closedAt)).toBeLessThan(TTL_MS);
    expect(await pollingActive(other)).toBe(true);
  });

  it('a holder that dies (no renewal, no release) is taken over within the ttl', async () => {
    const [holder, other] = await holderOf(await twoReplicas());
    const { leases } = holder.test.app.services;
    // Death as the others see it: the lease is neither renewed nor released any more.
    leases.renew = () => new Promise<boolean>(() => undefined);
    leases.release = async () => undefined;
    const diedAt = Date.now();
    await holder.test.close();
    const took = await takeoverMs(other, diedAt);
    expect(took).toBeGreaterThan(TTL_MS / 3);
    expect(took).toBeLessThan(TTL_MS + 1_000);
    expect(await pollingActive(other)).toBe(true);
  });

  it('a holder that cannot reach the lease stops polling before another takes over', async () => {
    const [holder, other] = await holderOf(await twoReplicas());
    const { leases } = holder.test.app.services;
    leases.renew = async () => {
      throw new Error('Connection is closed.');
    };
    leases.acquire = async () => {
      throw new Error('Connection is closed.');
    };
    const lostAt = Date.now();
    await waitFor(async () => ((await pollingActive(holder)) ? undefined : true), {
      timeoutMs: TTL_MS,
    });
    const stoppedAt = Date.now();
    const pollsWhenStopped = polls(holder);
    const took = await takeoverMs(other, lostAt);
    expect(stoppedAt - lostAt).toBeLessThan(took);
    await sleep(300);
    expect(polls(holder)).toBeLessThanOrEqual(pollsWhenStopped + 1);
  });
});

describe('chat polling lease, embedded', () => {
  it('the one process holds the lease and polls', async () => {
    const tg = await startTelegramStandIn({ maxLongPollMs: 50 });
    const { app } = await buildTestApp({ env: chatEnv(tg, { CHAT_POLLING: 'true' }) });
    await tg.waitForCalls('getUpdates', 2);
    expect((await app.inject('/api/v1/chatops/health')).json().polling_active).toBe(true);
  });
});
