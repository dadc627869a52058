import type { ReadinessSampler, Sent } from './flow.js';
import { seconds } from './flow.js';
import { type AttackConnection, countBy, heldMs, refused } from './hostile-clients.js';
import type { Scenario } from './report.js';
import { describeStatuses, percentile, send } from './requests.js';
import type { ServiceCensus } from './service-census.js';

// The verdicts of the hostile scenario, against the service's defaults (CONTRACT, Hostile
// clients): the scenario raises none of them, so these are the numbers it must hold to.

export const PER_ADDRESS_CONNECTIONS = 256;
const FEED_MAX = 500;
const FEED_PER_ADDRESS = 20;
const HEADERS_DEADLINE_MS = 10_000;
const KEEP_ALIVE_MS = 5_000;
/** Node looks for requests past their deadline once a second; the rest is scheduling. */
export const DEADLINE_SLACK_MS = 3_000;
/** "Closed at once": a refusal is a destroy on accept, milliseconds on a service that keeps up. */
const REFUSED_WITHIN_MS = 1_000;

/** Every alert sent was answered 200, and every one answered 200 is listed by the read API. */
export async function checkNothingLost(
  scenario: Scenario,
  url: string,
  namespace: string,
  alerts: Sent[],
) {
  const accepted = alerts.filter((s) => s.answer.status === 200);
  scenario.check(
    'every alert the normal client sent was answered 200',
    accepted.length === alerts.length,
    describeStatuses(alerts.map((s) => s.answer)),
  );
  const targets = new Set<string>();
  let cursor: string | null = null;
  // Bounded: a page holds up to 200; a few pages more than the alerts need is a broken cursor.
  for (let page = 0; page < alerts.length / 200 + 5; page += 1) {
    const query = `namespace=${namespace}&limit=200${cursor ? `&cursor=${cursor}` : ''}`;
    const answer = await send(`${url}/api/v1/incidents?${query}`);
    if (answer.status !== 200) throw new Error(`GET /incidents answered ${answer.status}`);
    const body = answer.body as {
      items: { target_resource: string }[];
      next_cursor: string | null;
    };
    for (const item of body.items) targets.add(item.target_resource);
    cursor = body.next_cursor;
    if (cursor === null) break;
  }
  const missing = accepted.filter((s) => !targets.has(`alert-${s.i}`));
  const sent = new Set(alerts.map((s) => `alert-${s.i}`));
  // One the client gave up on (no answer) may still have been recorded: that is not a loss.
  const unknown = [...targets].filter((target) => !sent.has(target));
  scenario.check(
    'every accepted alert is listed by GET /api/v1/incidents, and nothing else',
    missing.length === 0 && unknown.length === 0,
    `${accepted.length} accepted, ${targets.size} incidents listed, ${missing.length} missing, ${unknown.length} never sent`,
  );
}

export function checkHealth(
  scenario: Scenario,
  health: ReadinessSampler,
  from: number,
  to: number,
) {
  const samples = health.samples.filter((s) => s.at >= from && s.at <= to);
  const ms = samples.map((s) => s.end - s.at);
  scenario.check(
    '/readyz from 127.0.0.1 answered 200 all through the attack',
    samples.length > 0 && samples.every((s) => s.status === 200),
    `${samples.length} probes: ${countBy(samples, (s) => String(s.status))}; p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(0, ...ms).toFixed(0)} ms`,
  );
}

/** Each slow connection was refused at once by the per-address cap, or ended at its deadline. */
export function checkSlow(
  scenario: Scenario,
  slow: AttackConnection[],
  census: ServiceCensus,
  requestTimeoutMs: number,
) {
  const opened = slow.filter((c) => c.connectedAt !== undefined);
  const closedAtOnce = opened.filter(refused);
  const slowestRefusal = Math.max(0, ...closedAtOnce.map(heldMs));
  scenario.check(
    'every attacker connection could be opened here (no EMFILE in the bench process)',
    opened.length === slow.length,
    `${opened.length} of ${slow.length}; not opened: ${countBy(slow, (c) => c.error)}`,
  );
  scenario.check(
    `no address held more than ${PER_ADDRESS_CONNECTIONS} connections at once; the rest were closed at once`,
    census.samples > 0 &&
      census.peakPerAddress <= PER_ADDRESS_CONNECTIONS &&
      closedAtOnce.length > 0 &&
      slowestRefusal < REFUSED_WITHIN_MS,
    `the service held at most ${census.peakPerAddress} from ${census.peakAddress || 'any address'} (${census.samples} samples); ${closedAtOnce.length} of ${opened.length} closed without an answer, the slowest after ${slowestRefusal.toFixed(0)} ms`,
  );
  const deadlines: [string, number, number][] = [
    ['partial-headers', Math.min(HEADERS_DEADLINE_MS, requestTimeoutMs), 408],
    ['slow-body', requestTimeoutMs, 408],
    ['idle-keep-alive', KEEP_ALIVE_MS, 200],
  ];
  for (const [kind, deadline, answer] of deadlines) {
    const held = opened.filter((c) => c.kind === kind && !refused(c));
    const times = held.map(heldMs);
    const late = held.filter(
      (c) => c.closedAt === undefined || heldMs(c) > deadline + DEADLINE_SLACK_MS,
    );
    const wrong = held.filter((c) => c.status !== answer);
    scenario.check(
      `${kind}: each one let in was answered ${answer} and closed by the server after ${seconds(deadline)} (+ ${seconds(DEADLINE_SLACK_MS)})`,
      held.length > 0 && late.length === 0 && wrong.length === 0,
      `${held.length} let in, closed after ${seconds(Math.min(...times))}–${seconds(Math.max(...times))}; ${late.length} late or still open; answers ${countBy(held, (c) => String(c.status ?? 'none'))}`,
    );
  }
}

/** The feed held to 20 streams per address and 500 in all, and answered the rest 503. */
export function checkFeeds(scenario: Scenario, feeds: AttackConnection[], addresses: number) {
  const perAddress = Math.ceil(feeds.length / addresses);
  const expected = Math.min(FEED_MAX, addresses * Math.min(perAddress, FEED_PER_ADDRESS));
  const opened = feeds.filter((c) => c.status === 200);
  const refused = feeds.filter((c) => c.status === 503);
  scenario.check(
    `the feed opened ${expected} streams (${FEED_PER_ADDRESS} per address, ${FEED_MAX} in all) and answered the rest 503 with Retry-After`,
    opened.length === expected &&
      refused.length === feeds.length - expected &&
      refused.every((c) => Number(c.retryAfter) > 0),
    `${countBy(feeds, (c) => String(c.status ?? c.error ?? 'no answer'))}; Retry-After ${countBy(refused, (c) => c.retryAfter ?? 'missing')}`,
  );
  scenario.figure(
    'streams never read, still open when the attack ended',
    opened.filter((c) => c.closedAt === undefined).length,
  );
}

/**
 * The service's own event-loop delay since the last reading, from prom-client's default
 * metrics (each scrape resets them): tells the service's stalls from this process's.
 */
export async function serviceLoopDelay(url: string): Promise<string> {
  const answer = await send(`${url}/metrics`);
  const text = typeof answer.body === 'string' ? answer.body : '';
  const ms = (name: string) => {
    const value = new RegExp(`^nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1];
    return value === undefined ? '?' : (Number(value) * 1000).toFixed(0);
  };
  return `p99 ${ms('p99')} ms, max ${ms('max')} ms`;
}

/**
 * The three one-second windows with the slowest answers, by their offset from `from`: when
 * the goal is missed, which phase it was (connections opening from 0 s, header deadlines from
 * 10 s, body deadlines from 30 s) or a stall unrelated to any.
 */
export function slowestSeconds(sent: Sent[], from: number): string {
  const windows = new Map<number, number[]>();
  for (const s of sent) {
    const second = Math.floor((s.at - from) / 1000);
    windows.set(second, [...(windows.get(second) ?? []), s.answer.ms]);
  }
  return [...windows.entries()]
    .map(([second, ms]) => ({ second, max: Math.max(...ms), p50: percentile(ms, 50) }))
    .sort((a, b) => b.max - a.max)
    .slice(0, 3)
    .map((w) => `${w.second} s: max ${w.max.toFixed(0)} ms, p50 ${w.p50.toFixed(0)} ms`)
    .join('; ');
}
