import { issueAlertBody, peerEnv, postTrackerDelivery } from '../chat-and-tracker.js';
import { type Cluster, startCluster } from '../cluster.js';
import {
  FaultyPeer,
  fail500,
  flood429,
  ok,
  type PeerMode,
  type PeerRequest,
  slow,
} from '../peers.js';
import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import { describeStatuses, inParallel, percentile, postAlert, within } from '../requests.js';

/** The retry policy's promise: a 429 is retried no sooner than it asked (5 ms of clock slack). */
const CLOCK_SLACK_MS = 5;

/**
 * The chat API and the tracker misbehave (slow, 5xx, 429): alerts are still answered fast,
 * every approval card and tracker comment arrives exactly once, and retries wait as asked.
 */
export async function upstreamFaultsScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('upstream faults: slow, 500 and 429 chat API and tracker');
  const chat = new FaultyPeer();
  const tracker = new FaultyPeer();
  let cluster: Cluster | undefined;
  const count = scale.short ? 10 : 30;
  const issues = scale.short ? 3 : 8;
  try {
    await Promise.all([chat.start(), tracker.start()]);
    cluster = await startCluster(3, { env: peerEnv(chat, tracker) });
    await warmUp(scenario, cluster, chat);
    await chatSlow(scenario, cluster, chat, count);
    await chatFailing(scenario, cluster, chat, count);
    await chatFlooded(scenario, cluster, chat, count);
    await trackerFaults(scenario, cluster, tracker, issues);
    await nothingTwice(scenario, cluster, chat, tracker);
  } catch (error) {
    scenario.crashed(error);
  } finally {
    await cluster?.close();
    await Promise.all([chat.close(), tracker.close()]);
  }
  return scenario.report;
}

interface CardPhase {
  /** Each approval's sendMessage requests, in arrival order. */
  sends: Map<string, PeerRequest[]>;
  alertMs: number[];
  /** From the first alert to the last card answered 200, or -1 when some never came. */
  allSentMs: number;
}

/** Opens `count` incidents under `mode` and waits until each one's card was answered 200. */
async function openIncidents(
  scenario: Scenario,
  cluster: Cluster,
  chat: FaultyPeer,
  namespace: string,
  count: number,
  mode: PeerMode,
  waitMs: number,
): Promise<CardPhase> {
  chat.setMode(mode);
  const started = Date.now();
  const answers = await inParallel(count, count, (i) =>
    postAlert(cluster.replicas[i % 3]!.url, {
      alert_name: 'ChaosUpstreamFault',
      severity: 'warning',
      namespace,
      target_resource: `${namespace}-${i}`,
    }),
  );
  scenario.check(
    `${count} new incidents' alerts (${namespace}) are answered 200`,
    answers.every((a) => a.status === 200),
    describeStatuses(answers),
  );
  const rows = await cluster.sql<{ approval_id: string }>(
    'SELECT approval_id FROM incidents WHERE namespace = $1 AND approval_id IS NOT NULL',
    [namespace],
  );
  const approvals = rows.map((r) => r.approval_id);
  const sent = await within(waitMs, async () =>
    approvals.every((id) => chat.of('sendMessage', id).some((r) => r.status === 200)),
  );
  // Late duplicates would come within the retry schedule (0.5 + 1 + 2 s): give them a moment.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const sends = new Map(approvals.map((id) => [id, chat.of('sendMessage', id)]));
  const lastOk = Math.max(
    ...[...sends.values()]
      .flat()
      .filter((r) => r.status === 200)
      .map((r) => r.answeredAt),
  );
  chat.setMode(ok());
  return {
    sends,
    alertMs: answers.map((a) => a.ms),
    allSentMs: sent < 0 || approvals.length !== count ? -1 : lastOk - started,
  };
}

const successes = (requests: PeerRequest[]) => requests.filter((r) => r.status < 300).length;

function sentOnceEach(scenario: Scenario, what: string, phase: CardPhase, count: number) {
  const counts = [...phase.sends.values()].map(successes);
  const once = counts.filter((n) => n === 1).length;
  scenario.check(
    `${what}: every card is sent exactly once (one sendMessage answered 200 per approval)`,
    phase.sends.size === count && once === count,
    `${once} of ${count} once, ${counts.filter((n) => n === 0).length} never, ${counts.filter((n) => n > 1).length} more than once; all sent ${phase.allSentMs < 0 ? 'not within the wait' : `${(phase.allSentMs / 1000).toFixed(1)} s after the alerts`}`,
  );
}

function attemptFigures(scenario: Scenario, what: string, phase: CardPhase) {
  const all = [...phase.sends.values()].flat();
  const byStatus: Record<number, number> = {};
  for (const r of all) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  const maxTries = Math.max(0, ...[...phase.sends.values()].map((r) => r.length));
  scenario.figure(
    `${what}: sendMessage requests`,
    `${all.length} (${Object.entries(byStatus)
      .map(([s, n]) => `${n} × ${s}`)
      .join(
        ', ',
      )}), ${all.length - phase.sends.size} retries, at most ${maxTries} tries for one card`,
  );
}

/**
 * A replica's first requests compile and connect (several hundred ms on two cores): one
 * incident per replica with a healthy chat first, so phase (a) times the slow chat, not that.
 */
async function warmUp(scenario: Scenario, cluster: Cluster, chat: FaultyPeer) {
  const phase = await openIncidents(scenario, cluster, chat, 'chaos-warm-up', 3, ok(), 20_000);
  scenario.figure(
    'warm-up (healthy chat): alert answers',
    `max ${Math.max(...phase.alertMs).toFixed(0)} ms, cards sent ${(phase.allSentMs / 1000).toFixed(1)} s after`,
  );
}

async function chatSlow(scenario: Scenario, cluster: Cluster, chat: FaultyPeer, count: number) {
  const phase = await openIncidents(
    scenario,
    cluster,
    chat,
    'chaos-chat-slow',
    count,
    slow(5_000),
    40_000,
  );
  const p99 = percentile(phase.alertMs, 99);
  scenario.figure(
    'chat answering after 5 s: alert answers',
    `p50 ${percentile(phase.alertMs, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
  );
  scenario.check(
    'a chat API 5 s slow does not hold up alert answers (p99 < 1 s)',
    p99 < 1_000,
    `p99 ${p99.toFixed(0)} ms`,
  );
  attemptFigures(scenario, 'chat slow', phase);
  sentOnceEach(scenario, 'chat slow 5 s', phase, count);
}

async function chatFailing(scenario: Scenario, cluster: Cluster, chat: FaultyPeer, count: number) {
  const phase = await openIncidents(
    scenario,
    cluster,
    chat,
    'chaos-chat-500',
    count,
    fail500({ forMs: 2_000 }),
    20_000,
  );
  attemptFigures(scenario, 'chat 500 for 2 s', phase);
  const failed = [...phase.sends.values()].flat().filter((r) => r.status === 500).length;
  scenario.check(
    'the chat API answered 500 to some first tries (the fault took effect)',
    failed > 0,
    `${failed} answered 500`,
  );
  sentOnceEach(scenario, 'chat 500 for 2 s then ok', phase, count);
}

async function chatFlooded(scenario: Scenario, cluster: Cluster, chat: FaultyPeer, count: number) {
  const phase = await openIncidents(
    scenario,
    cluster,
    chat,
    'chaos-chat-429',
    count,
    flood429(2, { perKey: 1 }),
    20_000,
  );
  attemptFigures(scenario, 'chat 429 (retry_after 2) to each first try', phase);
  sentOnceEach(scenario, 'chat 429 then ok', phase, count);
  const gaps = retryGaps([...phase.sends.values()]);
  retryGapCheck(scenario, 'chat', gaps, 2_000);
}

/** For each 429, from its answer to the next request for the same key. */
function retryGaps(perKey: PeerRequest[][]): { gaps: number[]; unretried: number } {
  const gaps: number[] = [];
  let unretried = 0;
  for (const requests of perKey) {
    requests.forEach((request, i) => {
      if (request.status !== 429) return;
      const next = requests[i + 1];
      if (next) gaps.push(next.at - request.answeredAt);
      else unretried += 1;
    });
  }
  return { gaps, unretried };
}

function retryGapCheck(
  scenario: Scenario,
  what: string,
  { gaps, unretried }: { gaps: number[]; unretried: number },
  askedMs: number,
) {
  const min = gaps.length > 0 ? Math.min(...gaps) : Number.NaN;
  scenario.figure(
    `${what}: wait after a 429 before the retry`,
    gaps.length > 0
      ? `min ${min} ms, max ${Math.max(...gaps)} ms over ${gaps.length} retries`
      : 'no retries',
  );
  scenario.check(
    `${what}: every 429 is retried, none sooner than the ${askedMs / 1000} s it asked`,
    gaps.length > 0 && unretried === 0 && min >= askedMs - CLOCK_SLACK_MS,
    `${gaps.length} retries, min gap ${Number.isNaN(min) ? '-' : `${min} ms`}, ${unretried} 429s never retried`,
  );
}

async function trackerFaults(
  scenario: Scenario,
  cluster: Cluster,
  tracker: FaultyPeer,
  count: number,
) {
  const runs: { what: string; mode: PeerMode; retryAfterMs?: number }[] = [
    {
      what: 'tracker 429 (Retry-After 1) then ok',
      mode: flood429(1, { perKey: 1 }),
      retryAfterMs: 1_000,
    },
    { what: 'tracker 500 then ok', mode: fail500({ perKey: 1 }) },
  ];
  for (const [index, run] of runs.entries()) {
    tracker.setMode(run.mode);
    const issueIds = Array.from(
      { length: count },
      (_, i) => `chaos-fault-${Date.now()}-${index}-${i}`,
    );
    const answers = await inParallel(count, count, (i) =>
      postTrackerDelivery(cluster.replicas[i % 3]!.url, issueAlertBody(issueIds[i]!)),
    );
    const accepted = answers.filter(
      (a) => (a.body as { status?: string } | undefined)?.status === 'accepted',
    ).length;
    scenario.check(
      `${run.what}: ${count} distinct tracker issues are accepted`,
      accepted === count,
      `${accepted} accepted; ${describeStatuses(answers)}`,
    );
    const commentedMs = await within(20_000, async () =>
      issueIds.every((id) => successes(tracker.of('comment', id)) > 0),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const perIssue = issueIds.map((id) => tracker.of('comment', id));
    tracker.setMode(ok());
    const all = perIssue.flat();
    const faults = all.filter((r) => r.status >= 400).length;
    scenario.figure(
      `${run.what}: comment requests`,
      `${all.length} (${faults} refused, ${all.length - faults} answered 201), all in ${commentedMs < 0 ? 'not within 20 s' : `${(commentedMs / 1000).toFixed(1)} s`}`,
    );
    const once = perIssue.filter((requests) => successes(requests) === 1).length;
    scenario.check(
      `${run.what}: each accepted issue gets exactly one successful comment, after its refused try`,
      once === count && faults === count,
      `${once} of ${count} commented once, ${faults} tries refused`,
    );
    if (run.retryAfterMs) retryGapCheck(scenario, 'tracker', retryGaps(perIssue), run.retryAfterMs);
  }
}

/**
 * Over the whole run: no card (per approval), no message without buttons (per text, the
 * repair results) and no comment (per issue) was accepted twice.
 */
async function nothingTwice(
  scenario: Scenario,
  cluster: Cluster,
  chat: FaultyPeer,
  tracker: FaultyPeer,
) {
  const doubled = (requests: PeerRequest[]) => {
    const seen = new Map<string, number>();
    for (const r of requests) if (r.status < 300) seen.set(r.key, (seen.get(r.key) ?? 0) + 1);
    const twice = [...seen].filter(([, n]) => n > 1).map(([key]) => key);
    return { keys: seen.size, twice };
  };
  const sends = chat.of('sendMessage');
  const cards = doubled(sends.filter((r) => !r.key.startsWith('text:')));
  const plain = doubled(sends.filter((r) => r.key.startsWith('text:')));
  const comments = doubled(tracker.of('comment'));
  const [logged] = await cluster.sql<{ sent: string; approvals: string }>(
    `SELECT count(*) FILTER (WHERE success = 1) AS sent, count(DISTINCT approval_id) AS approvals
       FROM operation_log WHERE type = 'CHAT_RESULT_SENT'`,
  );
  scenario.figure(
    'repair results in the chat',
    `${plain.keys} distinct texts at the chat; ${logged?.sent ?? 0} CHAT_RESULT_SENT logged for ${logged?.approvals ?? 0} approvals`,
  );
  const sample = [...cards.twice, ...plain.twice, ...comments.twice][0];
  scenario.check(
    'nothing was sent twice over the run: one card per approval, each repair result once, one comment per issue',
    cards.twice.length === 0 && plain.twice.length === 0 && comments.twice.length === 0,
    `${cards.keys} approvals carded, ${cards.twice.length} twice; ${plain.keys} result texts, ${plain.twice.length} twice; ${comments.keys} issues commented, ${comments.twice.length} twice${sample ? `; e.g. ${sample.slice(0, 120)}` : ''}`,
  );
}
