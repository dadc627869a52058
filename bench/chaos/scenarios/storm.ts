import { type Cluster, killHard, startCluster } from '../cluster.js';
import {
  chainVerdict,
  followUpDrained,
  followUpState,
  holdOperationLog,
  waitingOnLocks,
} from '../follow-up.js';
import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import {
  type Answer,
  describeStatuses,
  inParallel,
  percentile,
  postAlert,
  within,
} from '../requests.js';

const CONCURRENCY = 48;

/**
 * The three-replica storm: identical alerts converge to one incident across replicas;
 * distinct alerts each open one incident while a replica is killed with SIGKILL mid-storm,
 * and every accepted alert is stored and followed up; then all three are killed mid-repair
 * (follow-up still draining) and, once restarted, every incident is evaluated exactly once.
 */
export async function stormScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('three-replica storm, kill -9 mid-storm and mid-repair');
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster(3);
    await converge(scenario, cluster, scale.short ? 90 : 300);
    await killMidStorm(scenario, cluster, scale.short ? 600 : 3_000);
    await killMidRepair(scenario, cluster, scale.short ? 300 : 1_500);
  } catch (error) {
    scenario.crashed(error);
  } finally {
    await cluster?.close();
  }
  return scenario.report;
}

async function converge(scenario: Scenario, cluster: Cluster, count: number) {
  const alert = {
    alert_name: 'KubePodCrashLooping',
    severity: 'warning',
    namespace: 'chaos-converge',
    target_resource: 'api-7d9f8b6c5-x2x4z',
  };
  const answers = await inParallel(count, CONCURRENCY, (i) =>
    postAlert(cluster.replicas[i % 3]!.url, alert),
  );
  const rows = await cluster.sql<{ hit_count: number }>(
    "SELECT hit_count FROM incidents WHERE namespace = 'chaos-converge'",
  );
  scenario.check(
    `${count} identical alerts over 3 replicas answered 200`,
    answers.every((a) => a.status === 200),
    describeStatuses(answers),
  );
  scenario.check(
    `they converge to one incident with hit count ${count}`,
    rows.length === 1 && rows[0]!.hit_count === count,
    `${rows.length} incidents, hit counts ${rows.map((r) => r.hit_count).join(', ')}`,
  );
}

/**
 * Like a load balancer in front of the replicas: a request that got no answer (its replica
 * died) goes to the next one. Resolves with every answer tried, the last one deciding.
 */
async function postWithFailover(cluster: Cluster, first: number, alert: Record<string, unknown>) {
  const tries: Answer[] = [];
  for (let hop = 0; hop < 3; hop += 1) {
    const answer = await postAlert(cluster.replicas[(first + hop) % 3]!.url, alert);
    tries.push(answer);
    if (answer.status !== 0) break;
  }
  return tries;
}

const distinctAlert = (namespace: string, i: number) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace,
  target_resource: `svc-${i}`,
});

async function killMidStorm(scenario: Scenario, cluster: Cluster, count: number) {
  const namespace = 'chaos-storm';
  const victim = cluster.replicas[1]!;
  let answered = 0;
  let killedAt = -1;
  const started = performance.now();
  const results = await inParallel(count, CONCURRENCY, async (i) => {
    const tries = await postWithFailover(cluster, i % 3, distinctAlert(namespace, i));
    answered += 1;
    if (killedAt < 0 && answered >= count * 0.4) {
      killedAt = answered;
      void killHard(victim);
    }
    return tries;
  });
  const seconds = (performance.now() - started) / 1000;
  const last = results.map((tries) => tries.at(-1)!);
  const accepted = last.filter((a) => a.status === 200);
  const cutOff = results.filter((tries) => tries.length > 1).length;
  scenario.figure('distinct alerts', count);
  scenario.figure('replica-2 killed with SIGKILL after', `${killedAt} answers`);
  scenario.figure('requests cut off by the kill and sent to another replica', cutOff);
  scenario.figure(
    'storm rate',
    `${Math.round(count / seconds)} alerts/s, p50 ${percentile(
      last.map((a) => a.ms),
      50,
    ).toFixed(0)} ms, p99 ${percentile(
      last.map((a) => a.ms),
      99,
    ).toFixed(0)} ms`,
  );
  scenario.check(
    'every alert is answered 200 by a surviving replica',
    accepted.length === count,
    describeStatuses(last),
  );
  const stored = await cluster.sql<{ target_resource: string; hit_count: number }>(
    'SELECT target_resource, hit_count FROM incidents WHERE namespace = $1',
    [namespace],
  );
  const storedTargets = new Set(stored.map((row) => row.target_resource));
  const missing = last.filter(
    (answer, i) => answer.status === 200 && !storedTargets.has(`svc-${i}`),
  ).length;
  scenario.check(
    'every accepted alert has its incident, and only one',
    missing === 0 && stored.length === storedTargets.size && stored.length === count,
    `${stored.length} incidents for ${count} alerts, ${missing} accepted alerts missing`,
  );

  const restartedIn = performance.now();
  await cluster.restart(1);
  scenario.figure(
    'replica-2 back (ready) after',
    `${((performance.now() - restartedIn) / 1000).toFixed(1)} s`,
  );
  const drainedMs = await followUpDrained(cluster, namespace, 60_000);
  const state = await followUpState(cluster, namespace);
  scenario.figure(
    'follow-up drained (card, repair evaluation) after the storm in',
    drainedMs < 0 ? 'not within 60 s' : `${(drainedMs / 1000).toFixed(1)} s`,
  );
  scenario.check(
    'every incident is followed up exactly once, the outbox is empty',
    drainedMs >= 0 && state.doubled === 0,
    `${state.evaluated} of ${state.incidents} evaluated, ${state.doubled} twice, ${state.outboxWaiting} outbox rows waiting`,
  );
}

async function killMidRepair(scenario: Scenario, cluster: Cluster, count: number) {
  const namespace = 'chaos-repair';
  const half = Math.floor(count / 2);
  const send = (from: number, to: number) =>
    inParallel(to - from, CONCURRENCY, (k) =>
      postAlert(cluster.replicas[(from + k) % 3]!.url, distinctAlert(namespace, from + k)),
    );
  // The first half is followed up before the kill; the second half's follow-up is claimed
  // and waits for the operation log, held here, so the kill lands mid-repair however fast
  // the follow-up runs (it runs alongside intake and may finish before the last answer).
  const first = await send(0, half);
  await within(30_000, async () => (await followUpState(cluster, namespace)).evaluated >= half, 20);
  const release = await holdOperationLog(cluster);
  try {
    const answers = [...first, ...(await send(half, count))];
    scenario.check(
      `${count} more distinct alerts answered 200`,
      answers.every((a) => a.status === 200),
      describeStatuses(answers),
    );
    const waitedMs = await within(10_000, async () => (await waitingOnLocks(cluster)) > 0, 20);
    scenario.figure(
      'follow-up waiting on the held operation log after',
      waitedMs < 0 ? 'not within 10 s' : `${waitedMs} ms`,
    );
    await Promise.all(cluster.replicas.map((replica) => killHard(replica)));
  } finally {
    await release();
  }
  const atKill = await followUpState(cluster, namespace);
  scenario.figure(
    'all three replicas killed with SIGKILL mid-repair, evaluated so far',
    `${atKill.evaluated} of ${atKill.incidents}`,
  );
  scenario.check(
    'the kill came while follow-up work was still waiting',
    atKill.evaluated >= half && atKill.evaluated < atKill.incidents,
    `${atKill.evaluated} of ${atKill.incidents} evaluated at the kill`,
  );
  const restarted = performance.now();
  await Promise.all([0, 1, 2].map((index) => cluster.restart(index)));
  const drainedMs = await followUpDrained(cluster, namespace, 90_000);
  const state = await followUpState(cluster, namespace);
  scenario.figure(
    'restart to every incident followed up',
    drainedMs < 0 ? 'not within 90 s' : `${((performance.now() - restarted) / 1000).toFixed(1)} s`,
  );
  scenario.check(
    'after the restart every incident is evaluated exactly once',
    drainedMs >= 0 && state.doubled === 0,
    `${state.evaluated} of ${state.incidents} evaluated, ${state.doubled} twice, ${state.outboxWaiting} outbox rows waiting`,
  );
  scenario.check(
    'no approval is left executing',
    state.executing === 0,
    `${state.executing} executing`,
  );
  const chain = await chainVerdict(cluster.replicas[0]!.url);
  scenario.check('the operation log hash chain is intact', chain.valid, chain.detail);
}
