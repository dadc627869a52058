import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { issueAlertBody, peerEnv, postTrackerDelivery } from '../chat-and-tracker.js';
import { type Cluster, killHard, startCluster } from '../cluster.js';
import { anyExited, seconds, sleep } from '../flow.js';
import { followUpDrained } from '../follow-up.js';
import { FaultyPeer, hold, ok, type PeerRequest } from '../peers.js';
import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import { type Answer, describeStatuses, postAlert, send, within } from '../requests.js';

const OPERATOR = 'chaos-operator';
const OPERATOR_KEY = 'chaos-operator-key';
const OPERATOR_HEADERS = {
  'content-type': 'application/json',
  'x-operator-id': OPERATOR,
  'x-operator-key': OPERATOR_KEY,
};

/** How much of each kind one round does; the kill lands while all of it is in flight. */
interface RoundSize {
  /** Resolves sent to the replica that is killed, held between the resolve and the expiry. */
  resolvesCut: number;
  /** Resolves on the survivors racing a firing alert of the same incident. */
  resolvesRaced: number;
  decisions: number;
  silences: number;
  newAlerts: number;
  trackerIssues: number;
}

const SHORT: RoundSize = {
  resolvesCut: 2,
  resolvesRaced: 2,
  decisions: 2,
  silences: 4,
  newAlerts: 4,
  trackerIssues: 2,
};
const FULL: RoundSize = {
  resolvesCut: 3,
  resolvesRaced: 3,
  decisions: 4,
  silences: 8,
  newAlerts: 8,
  trackerIssues: 3,
};

/** One invariant, checked after every kill: the kills it held through until it first broke. */
interface Invariant {
  what: string;
  /** Violations found now (cumulative over the run: the database and the stand-ins keep all). */
  find(): Promise<string[]>;
  survived: number;
  brokenAfter?: number;
  examples: string[];
}

/**
 * CONTRACT, Under races, crashes and abuse: `kill -9` of a replica while resolves, silence
 * creations, approval decisions, firing alerts and tracker deliveries are in flight, several
 * times over; after each kill (and the replica's restart) four invariants are checked:
 * no resolved incident keeps a pending approval; no alert converged into a resolved incident
 * (by commit order); no approval is both expired and executed; every chat card and every
 * tracker comment was sent once, or twice when the first send was cut off mid-flight by the
 * kill (`sendsOnce`). The report says, per invariant, how many kills it survived.
 *
 * Barriers, not luck, put the kill at the steps that matter (a second connection holds row
 * locks the service's own statements wait on): the killed replica's resolves wait on their
 * approvals' lock rows (after the incident's move, in today's two-transaction resolve), and
 * on the survivors a resolve and a firing alert of the same incident both wait on the
 * incident's row, the resolve first, the alert having read the incident as open. The
 * tracker stand-in holds comments unanswered, and the replica killed is the one sending one.
 */
export async function killMidMovesScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('kill -9 during resolves, silences and decisions, invariants');
  const chat = new FaultyPeer();
  const tracker = new FaultyPeer();
  let cluster: Cluster | undefined;
  const kills = scale.short ? 3 : 20;
  const size = scale.short ? SHORT : FULL;
  try {
    await Promise.all([chat.start(), tracker.start()]);
    cluster = await startCluster(3, {
      env: { ...peerEnv(chat, tracker), OPERATOR_KEYS: `${OPERATOR}:${OPERATOR_KEY}` },
      // The converge invariant orders alerts and resolves by when they committed.
      postgresSettings: ['track_commit_timestamp=on'],
    });
    const invariants = invariantsOf(cluster, chat, tracker);
    const totals = { requests: [] as Answer[], cut: 0 };
    const givenUp = new Set<string>();
    const started = performance.now();
    for (let round = 1; round <= kills; round += 1) {
      const outcome = await killRound(scenario, cluster, chat, tracker, round, size, givenUp);
      totals.requests.push(...outcome.answers);
      totals.cut += outcome.cut;
      for (const invariant of invariants) {
        if (invariant.brokenAfter !== undefined) continue;
        const found = await invariant.find();
        if (found.length === 0) invariant.survived += 1;
        else {
          invariant.brokenAfter = round;
          invariant.examples = found;
        }
      }
    }
    scenario.figure(
      `${kills} kills (each of the replica sending a held comment, else the next in turn), in`,
      seconds(performance.now() - started),
    );
    for (const invariant of invariants) {
      const found = await invariant.find();
      scenario.figure(
        `${invariant.what}: violations at the end`,
        found.length === 0
          ? 'none'
          : `${found.length}${tally(found)}, e.g. ${examplesOf(found).join('; ')}`,
      );
    }
    const sends = await sendCounts(cluster, chat, tracker);
    scenario.figure(
      'sends cut off mid-flight by a kill (held by the stand-in when the replica died)',
      `cards ${sends.cards.cutOff}, comments ${sends.comments.cutOff}`,
    );
    // An edit cut off holds back the cards queued behind it in the killed replica: message
    // calls go out one at a time (adapters/telegram/telegram-chat.ts).
    scenario.figure(
      'chat calls cut off mid-flight by a kill, by method',
      cutOffByMethod(chat.requests),
    );
    scenario.figure(
      'of those, sent once more (allowed: the remote API cannot tell whether the first landed)',
      `cards ${sends.cards.repeated}, comments ${sends.comments.repeated}`,
    );
    scenario.figure(
      'approvals with no card, their incident resolved before its follow-up ran (allowed)',
      sends.cards.exempt,
    );
    scenario.figure(
      'requests of the batches (last answer after fail-over)',
      `${totals.requests.length}: ${describeStatuses(totals.requests)}; ${totals.cut} cut off by a kill and sent again to a survivor`,
    );
    // 409: already resolved or decided, by the request's own first try or by its race.
    const odd = totals.requests.filter((a) => a.status !== 200 && a.status !== 409);
    scenario.check(
      'every request of the batches is answered 200 or 409, after fail-over',
      odd.length === 0,
      odd.length
        ? `${describeStatuses(odd)}: ${odd
            .slice(0, 2)
            .map((a) => JSON.stringify(a.body ?? a.error).slice(0, 160))
            .join('; ')}`
        : `${totals.requests.length} answered`,
    );
    const exited = anyExited(cluster);
    scenario.check(
      'no surviving replica exited during the kills',
      exited.length === 0,
      exited.length ? exited.join('; ') : '3 of 3 running at the end',
    );
    for (const invariant of invariants) {
      scenario.check(
        `${invariant.what}: held through every kill`,
        invariant.brokenAfter === undefined,
        invariant.brokenAfter === undefined
          ? `survived ${invariant.survived} of ${kills} kills`
          : `survived ${invariant.survived} of ${kills} kills, broken after kill ${invariant.brokenAfter}: ${invariant.examples.length} found, e.g. ${invariant.examples.slice(0, 3).join('; ')}`,
      );
    }
  } catch (error) {
    scenario.crashed(error);
  } finally {
    await cluster?.close();
    await Promise.all([chat.close(), tracker.close()]);
  }
  return scenario.report;
}

/** One example of each kind of send counted wrong, else the last two found. */
function examplesOf(found: string[]): string[] {
  const kinds = [' cards', ' comments'].flatMap((kind) => {
    const line = found.find((l) => l.includes(kind));
    return line ? [line] : [];
  });
  return kinds.length > 0 ? kinds : found.slice(-2);
}

/** Sends counted wrong, by kind and count: ` (cards: 2 × 0; comments: 5 × 2)`, else empty. */
function tally(found: string[]): string {
  const counts = new Map<string, Map<string, number>>();
  for (const line of found) {
    const match = /: (\d+) (cards|comments)/.exec(line);
    if (!match) continue;
    const byCount = counts.get(match[2]!) ?? new Map<string, number>();
    byCount.set(match[1]!, (byCount.get(match[1]!) ?? 0) + 1);
    counts.set(match[2]!, byCount);
  }
  if (counts.size === 0) return '';
  const parts = [...counts].map(
    ([kind, byCount]) =>
      `${kind}: ${[...byCount].map(([sent, n]) => `${n} sent ${sent} times`).join(', ')}`,
  );
  return ` (${parts.join('; ')})`;
}

interface RoundOutcome {
  answers: Answer[];
  /** Requests that got no answer (their replica was killed), then sent to a survivor. */
  cut: number;
}

interface SetUp {
  incident: string;
  approval: string;
  alert: Record<string, unknown>;
}

async function killRound(
  scenario: Scenario,
  cluster: Cluster,
  chat: FaultyPeer,
  tracker: FaultyPeer,
  round: number,
  size: RoundSize,
  givenUp: Set<string>,
): Promise<RoundOutcome> {
  const namespace = `chaos-kill-${round}`;
  const setUp = await openIncidents(cluster, chat, namespace, size);
  const cut = setUp.slice(0, size.resolvesCut);
  const raced = setUp.slice(size.resolvesCut, size.resolvesCut + size.resolvesRaced);
  const decided = setUp.slice(size.resolvesCut + size.resolvesRaced);

  // The tracker, then the chat, take requests and hold them unanswered until the kill: the
  // victim dies with a comment (and maybe cards) sent and not yet acknowledged. Each hold is
  // kept well under the senders' 10 s timeout, so that only the kill cuts a send short.
  tracker.setMode(hold());
  const batch = new Batch(cluster);
  for (let i = 0; i < size.trackerIssues; i += 1) {
    const body = issueAlertBody(`${namespace}-issue-${i}`);
    batch.add(i % 3, (url) => postTrackerDelivery(url, body));
  }
  await within(10_000, async () => tracker.held().some((r) => r.method === 'comment'), 50);
  const sender = commentSender(cluster, tracker);
  const heldComment = sender !== undefined;
  const victim = sender ?? (round - 1) % 3;
  batch.victim = victim;
  const survivors = [0, 1, 2].filter((index) => index !== victim);

  let chatSeen = chat.requests.length;
  const barrier = await holdRows(
    cluster,
    cut.map((s) => `approval:${s.approval}`),
    raced.map((s) => s.incident),
  );
  try {
    // The resolves first, so that each waits at its barrier before anything races it.
    for (const s of cut) batch.add(victim, (url) => resolve(url, s.incident));
    for (const [i, s] of raced.entries()) {
      batch.add(survivors[i % 2]!, (url) => resolve(url, s.incident));
    }
    await within(
      10_000,
      async () => (await waitingOnLocks(cluster)) >= cut.length + raced.length,
      50,
    );
    // Firing again: each reads its incident as open, then waits behind the resolve.
    for (const [i, s] of raced.entries()) {
      batch.add(survivors[(i + 1) % 2]!, (url) => postAlert(url, s.alert));
    }
    await within(
      5_000,
      async () => (await waitingOnLocks(cluster)) > cut.length + raced.length,
      50,
    );
    chat.setMode(hold());
    // Everything else goes over all three replicas, the victim included. Each approval
    // approved here has its incident resolved at the same time on another replica: the
    // approval ends expired or executed, never both.
    for (const [i, s] of decided.entries()) {
      const approve = i % 2 === 0;
      batch.add(i % 3, (url) =>
        send(`${url}/api/v1/approvals/${s.approval}/decision`, {
          body: JSON.stringify({ decision: approve ? 'approve' : 'reject' }),
          headers: OPERATOR_HEADERS,
        }),
      );
      if (approve) batch.add((i + 1) % 3, (url) => resolve(url, s.incident));
    }
    for (let i = 0; i < size.silences; i += 1) {
      batch.add(i % 3, (url) => createSilence(url, `${namespace}-silence-${i}`));
    }
    for (let i = 0; i < size.newAlerts; i += 1) {
      batch.add(i % 3, (url) => postAlert(url, alertOf(namespace, `new-${i}`)));
    }
    // A moment for the other requests to reach the victim, some of them mid-way.
    await sleep(50 + Math.floor(Math.random() * 250));
  } finally {
    chatSeen = chat.requests.length;
    await killHard(cluster.replicas[victim]!);
    // The stand-ins see the victim's connections close while holding its requests: those
    // are the sends cut off mid-flight (`PeerRequest.cutOff`), so they must close first.
    await sleep(100);
    await barrier.release();
    chat.setMode(ok());
    tracker.setMode(ok());
  }
  const killedAt = performance.now();
  const restarting = cluster.restart(victim);
  const outcome = await batch.settle();
  await restarting;
  const restartMs = performance.now() - killedAt;
  const settled = await settle(cluster, chat, tracker, namespace, givenUp);
  scenario.figure(
    `kill ${round} (replica-${victim + 1}${heldComment ? ', a comment in flight' : ''}): restarted, then follow-up drained, then cards and comments all sent; chat calls cut off`,
    `${seconds(restartMs)}, ${settled.followUp}, ${settled.sent}; ${cutOffByMethod(chat.requests.slice(chatSeen))}`,
  );
  return outcome;
}

/** Requests of one round; one cut off by the kill is sent again to the next live replica. */
class Batch {
  private readonly running: Promise<{ answer: Answer; cut: boolean }>[] = [];
  /** The replica that is killed: never the one a cut-off request goes to next. */
  victim = -1;

  constructor(private readonly cluster: Cluster) {}

  private url(index: number): string {
    return this.cluster.replicas[index]!.url;
  }

  add(first: number, request: (url: string) => Promise<Answer>): void {
    this.running.push(
      (async () => {
        const answer = await request(this.url(first));
        if (answer.status !== 0) return { answer, cut: false };
        // Like a load balancer: the next replica that is not the victim.
        const next = [1, 2].map((hop) => (first + hop) % 3).find((i) => i !== this.victim)!;
        return { answer: await request(this.url(next)), cut: true };
      })(),
    );
  }

  async settle(): Promise<RoundOutcome> {
    const done = await Promise.all(this.running);
    return { answers: done.map((d) => d.answer), cut: done.filter((d) => d.cut).length };
  }
}

function alertOf(namespace: string, target: string): Record<string, unknown> {
  return {
    alert_name: 'ChaosKillMidMoves',
    severity: 'warning',
    namespace,
    target_resource: target,
  };
}

function resolve(url: string, incident: string): Promise<Answer> {
  return send(`${url}/api/v1/incidents/${incident}/resolve`, {
    body: '{}',
    headers: OPERATOR_HEADERS,
  });
}

/** The replica whose connection carries a comment the tracker holds, found by its port. */
function commentSender(cluster: Cluster, tracker: FaultyPeer): number | undefined {
  for (const held of tracker.held()) {
    if (held.method !== 'comment' || held.remotePort === undefined) continue;
    let listing = '';
    try {
      listing = execFileSync(
        'ss',
        ['-tnpH', 'state', 'established', `( sport = :${held.remotePort} )`],
        { encoding: 'utf8' },
      );
    } catch {
      return undefined; // no ss: the victim is chosen in turn
    }
    const pid = Number(/pid=(\d+)/.exec(listing)?.[1]);
    const index = cluster.replicas.findIndex((replica) => replica.child.pid === pid);
    if (index >= 0) return index;
  }
  return undefined;
}

/** A silence that mutes nothing this scenario sends: its creation is what is under the kill. */
function createSilence(url: string, value: string): Promise<Answer> {
  const now = Date.now();
  return send(`${url}/api/v1/alertmanager/api/v2/silences`, {
    body: JSON.stringify({
      matchers: [{ name: 'chaos_unused', value, isRegex: false, isEqual: true }],
      startsAt: new Date(now).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      createdBy: 'chaos',
      comment: 'created while a replica is killed',
    }),
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * The round's incidents, each with its pending approval, its card at the chat and its
 * follow-up done (auto-repair leaves a made-up alert's approval to a person).
 */
async function openIncidents(
  cluster: Cluster,
  chat: FaultyPeer,
  namespace: string,
  size: RoundSize,
): Promise<SetUp[]> {
  const count = size.resolvesCut + size.resolvesRaced + size.decisions;
  const alerts = Array.from({ length: count }, (_, i) => alertOf(namespace, `setup-${i}`));
  const answers = await Promise.all(
    alerts.map((alert, i) => postAlert(cluster.replicas[i % 3]!.url, alert)),
  );
  const refused = answers.filter((a) => a.status !== 200);
  if (refused.length > 0) throw new Error(`set-up alerts refused: ${describeStatuses(answers)}`);
  let rows: { id: string; approval_id: string | null; target_resource: string }[] = [];
  const ready = await within(30_000, async () => {
    rows = await cluster.sql(
      'SELECT id, approval_id, target_resource FROM incidents WHERE namespace = $1',
      [namespace],
    );
    return (
      rows.length === count &&
      rows.every((r) => r.approval_id && chat.of('sendMessage', r.approval_id).length > 0)
    );
  });
  if (ready < 0) throw new Error(`${namespace}: the set-up incidents' cards did not all arrive`);
  if ((await followUpDrained(cluster, namespace, 30_000)) < 0) {
    throw new Error(`${namespace}: the set-up incidents' follow-up did not drain`);
  }
  return alerts.map((alert) => {
    const row = rows.find((r) => r.target_resource === alert.target_resource)!;
    return { incident: row.id, approval: row.approval_id!, alert };
  });
}

/**
 * A transaction of its own holding the service's lock rows of `locks` (mutexes, as
 * `withLock` takes them) and the rows of `incidents` until released.
 */
async function holdRows(cluster: Cluster, locks: string[], incidents: string[]) {
  const client = new pg.Client({ connectionString: cluster.postgres.url });
  client.on('error', () => {});
  await client.connect();
  await client.query('BEGIN');
  for (const name of locks) {
    await client.query(
      `INSERT INTO mutexes (name, touched_at) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET touched_at = excluded.touched_at`,
      [name, Date.now()],
    );
  }
  await client.query('SELECT id FROM incidents WHERE id = ANY($1) FOR UPDATE', [incidents]);
  return {
    async release() {
      await client.query('COMMIT').catch(() => {});
      await client.end().catch(() => {});
    },
  };
}

async function waitingOnLocks(cluster: Cluster): Promise<number> {
  const [row] = await cluster.sql<{ waiting: string }>(
    "SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
  );
  return Number(row?.waiting ?? 0);
}

/**
 * After the restart: what the round set going has finished (follow-up of every incident,
 * every approval's card, every accepted issue's comment), and a moment for late repeats.
 * A job the killed replica had taken is offered again only once its lease runs out. What
 * an earlier round waited for in vain (`givenUp`) is not waited for again.
 */
async function settle(
  cluster: Cluster,
  chat: FaultyPeer,
  tracker: FaultyPeer,
  namespace: string,
  givenUp: Set<string>,
) {
  const followUpMs = await followUpDrained(cluster, namespace, 40_000);
  let missing: string[] = [];
  const sentMs = await within(10_000, async () => {
    const approvals = await approvalsOwingACard(cluster);
    const issues = await acceptedIssues(cluster);
    missing = [
      ...approvals.filter((id) => successes(chat.of('sendMessage', id)) === 0),
      ...issues.filter((issue) => successes(tracker.of('comment', issue)) === 0),
    ].filter((key) => !givenUp.has(key));
    return missing.length === 0;
  });
  for (const key of missing) givenUp.add(key);
  // Late repeats would come within the senders' retry schedule (0.5 + 1 s).
  await sleep(1_500);
  return {
    followUp: followUpMs < 0 ? 'not within 40 s' : seconds(followUpMs),
    sent: sentMs < 0 ? `${missing.length} not within 10 s more` : seconds(sentMs),
  };
}

const successes = (requests: PeerRequest[]) => requests.filter((r) => r.status < 300).length;

/**
 * CONTRACT, Under races, crashes and abuse, Exactly once outside: whether one approval's cards
 * or one issue's comments were sent as the contract allows. Once; or twice when the first
 * send was cut off mid-flight (its replica killed while the stand-in held it: the remote API
 * gives no way to tell whether it landed); and none at all is right only when none was owed. A send the
 * stand-in took counts as made, answered or not (a real API would have acted on it).
 */
function sendsOnce(requests: PeerRequest[], owed: boolean) {
  const taken = requests.filter((r) => r.status < 300).sort((a, b) => a.at - b.at);
  const cutOff = taken.filter((r) => r.cutOff).length;
  const repeated = taken.length === 2 && taken[0]!.cutOff;
  // Not owed, a card may still have gone: the follow-up read the incident open just before.
  const ok = taken.length === 0 ? !owed : taken.length === 1 || repeated;
  return { sent: taken.length, cutOff, repeated, ok };
}

/**
 * Every approval, and whether it owes a card. An incident's approval owes none when the
 * incident was resolved before its follow-up ran (CONTRACT, Incident lifecycle: it gets no
 * card; escalation/incident-followup.ts): a `resolved` entry of its timeline committed no
 * later than its follow-up job's completion. An approval of a tracker issue always owes one.
 */
async function approvalCards(cluster: Cluster): Promise<{ id: string; owed: boolean }[]> {
  const rows = await cluster.sql<{ id: string; resolved_first: boolean }>(
    `SELECT a.id, EXISTS (
         SELECT 1 FROM outbox o, incident_timeline t
          WHERE o.job_name = 'incident.follow-up' AND o.completed_at IS NOT NULL
            AND (o.payload::jsonb -> 'incident_ids') ? i.id
            AND t.incident_id = i.id AND t.event = 'resolved'
            AND pg_xact_commit_timestamp(t.xmin) <= pg_xact_commit_timestamp(o.xmin)
       ) AS resolved_first
       FROM approvals a LEFT JOIN incidents i ON i.approval_id = a.id`,
  );
  return rows.map((r) => ({ id: r.id, owed: !r.resolved_first }));
}

async function approvalsOwingACard(cluster: Cluster): Promise<string[]> {
  return (await approvalCards(cluster)).filter((a) => a.owed).map((a) => a.id);
}

function cutOffByMethod(requests: PeerRequest[]): string {
  const counts = new Map<string, number>();
  for (const r of requests.filter((r) => r.cutOff))
    counts.set(r.method, (counts.get(r.method) ?? 0) + 1);
  return counts.size === 0 ? 'none' : [...counts].map(([m, n]) => `${m} ${n}`).join(', ');
}

/** Over the whole run: sends cut off by a kill, those sent once more, cards owed by none. */
async function sendCounts(cluster: Cluster, chat: FaultyPeer, tracker: FaultyPeer) {
  const cards = (await approvalCards(cluster)).map((a) => ({
    ...sendsOnce(chat.of('sendMessage', a.id), a.owed),
    owed: a.owed,
  }));
  const comments = (await acceptedIssues(cluster)).map((issue) =>
    sendsOnce(tracker.of('comment', issue), true),
  );
  const sum = (verdicts: ReturnType<typeof sendsOnce>[]) => ({
    cutOff: verdicts.reduce((n, v) => n + v.cutOff, 0),
    repeated: verdicts.filter((v) => v.repeated).length,
  });
  return {
    cards: { ...sum(cards), exempt: cards.filter((c) => !c.owed && c.sent === 0).length },
    comments: sum(comments),
  };
}

async function acceptedIssues(cluster: Cluster): Promise<string[]> {
  const rows = await cluster.sql<{ issue_id: string }>(
    "SELECT DISTINCT issue_id FROM external_alert_events WHERE stage = 'received'",
  );
  return rows.map((r) => r.issue_id);
}

function invariantsOf(cluster: Cluster, chat: FaultyPeer, tracker: FaultyPeer): Invariant[] {
  const invariant = (what: string, find: () => Promise<string[]>): Invariant => ({
    what,
    find,
    survived: 0,
    examples: [],
  });
  return [
    invariant('no resolved incident with a pending approval', async () => {
      const rows = await cluster.sql<{ id: string; approval_id: string }>(
        `SELECT i.id, i.approval_id FROM incidents i JOIN approvals a ON a.id = i.approval_id
          WHERE i.status = 'resolved' AND a.status = 'pending' ORDER BY i.seq`,
      );
      return rows.map((r) => `incident ${r.id} resolved, approval ${r.approval_id} pending`);
    }),
    invariant('no alert converged into a resolved incident', async () => {
      // For each alert answered `converged`: the last resolve or reopen of its incident that
      // committed no later than the alert did (a reopen in the alert's own transaction ties
      // and wins). A resolve there means the alert joined an incident already resolved.
      const rows = await cluster.sql<{ seq: string; incident_id: string; lag_ms: string }>(
        `WITH moves AS (
           SELECT incident_id, event, pg_xact_commit_timestamp(xmin) AS committed
             FROM incident_timeline WHERE event IN ('resolved', 'reopened')
         ), converged AS (
           SELECT seq, incident_id, pg_xact_commit_timestamp(xmin) AS committed
             FROM alerts WHERE outcome = 'converged'
         )
         SELECT c.seq, c.incident_id,
                round(extract(epoch FROM c.committed - last.committed) * 1000) AS lag_ms
           FROM converged c
           CROSS JOIN LATERAL (
             SELECT m.event, m.committed FROM moves m
              WHERE m.incident_id = c.incident_id AND m.committed <= c.committed
              ORDER BY m.committed DESC, (m.event = 'reopened') DESC LIMIT 1
           ) last
          WHERE last.event = 'resolved'`,
      );
      return rows.map(
        (r) =>
          `alert row ${r.seq} converged into ${r.incident_id} ${r.lag_ms} ms after its resolve committed`,
      );
    }),
    invariant('no approval both expired and executed', async () => {
      const rows = await cluster.sql<{ approval_id: string; moves: string }>(
        `SELECT approval_id, string_agg(from_status || '→' || to_status, ', ' ORDER BY seq) AS moves
           FROM approval_decisions GROUP BY approval_id
          HAVING bool_or(to_status = 'expired') AND bool_or(to_status IN ('executing', 'executed'))
         UNION
         SELECT a.id, 'status expired, executed by ' || min(o.actor)
           FROM approvals a JOIN operation_log o ON o.approval_id = a.id
          WHERE a.status = 'expired' AND o.type = 'EXECUTION_COMPLETED' AND o.actor <> 'auto-repair'
          GROUP BY a.id`,
      );
      return rows.map((r) => `approval ${r.approval_id}: ${r.moves}`);
    }),
    invariant('every chat card and every tracker comment sent once', async () => {
      const found: string[] = [];
      for (const { id, owed } of await approvalCards(cluster)) {
        const cards = sendsOnce(chat.of('sendMessage', id), owed);
        if (!cards.ok)
          found.push(
            `approval ${id}: ${cards.sent} cards, ${cards.cutOff} cut off (${await approvalTrail(cluster, id)})`,
          );
      }
      for (const issue of await acceptedIssues(cluster)) {
        const comments = sendsOnce(tracker.of('comment', issue), true);
        if (!comments.ok)
          found.push(
            `issue ${issue}: ${comments.sent} comments, ${comments.cutOff} cut off (${await issueTrail(cluster, issue)})`,
          );
      }
      return found;
    }),
  ];
}

/** What the service recorded of an issue: its stages, and whether its analysis was queued. */
async function issueTrail(cluster: Cluster, issue: string): Promise<string> {
  const stages = await cluster.sql<{ stage: string; n: string }>(
    'SELECT stage, count(*) AS n FROM external_alert_events WHERE issue_id = $1 GROUP BY stage ORDER BY min(seq)',
    [issue],
  );
  const queued = await cluster.sql<{ relayed_at: string | null; completed_at: string | null }>(
    "SELECT relayed_at, completed_at FROM outbox WHERE job_name = 'errtracker.analyze' AND payload LIKE $1",
    [`%${JSON.stringify(issue)}%`],
  );
  const analysis =
    queued.length === 0
      ? 'no analysis queued'
      : queued[0]!.completed_at
        ? 'analysis queued and completed'
        : 'analysis queued, not completed';
  return `${stages.map((s) => `${s.stage} ×${s.n}`).join(', ')}; ${analysis}`;
}

/** What an approval is for and where it stands, for a card counted wrong. */
async function approvalTrail(cluster: Cluster, approvalId: string): Promise<string> {
  const [row] = await cluster.sql<{ status: string; requested_by: string; target: string | null }>(
    `SELECT a.status, a.requested_by, i.namespace || '/' || i.target_resource AS target
       FROM approvals a LEFT JOIN incidents i ON i.approval_id = a.id WHERE a.id = $1`,
    [approvalId],
  );
  const sends = await cluster.sql<{ n: string }>(
    "SELECT count(*) AS n FROM operation_log WHERE approval_id = $1 AND type = 'CHAT_SENT'",
    [approvalId],
  );
  // A card row is written before its message is sent (cards/card-sender.ts); one without a
  // message id was never acknowledged by the chat.
  const [cards] = await cluster.sql<{ rows: string; unsent: string }>(
    `SELECT count(*) AS rows, count(*) FILTER (WHERE message_id IS NULL) AS unsent
       FROM chat_cards WHERE approval_id = $1`,
    [approvalId],
  );
  return `${row?.status ?? 'missing'}, requested by ${row?.requested_by ?? '?'}, ${row?.target ?? 'no incident'}, ${sends[0]?.n ?? 0} CHAT_SENT logged, ${cards?.rows ?? 0} card rows (${cards?.unsent ?? 0} without a message id)`;
}
