import { type Cluster, startCluster } from '../cluster.js';
import {
  anyExited,
  bodyText,
  DRIVER_WORDS,
  distinctBodies,
  Flow,
  latencies,
  missingIncidents,
  REDIS_UNAVAILABLE,
  ReadinessSampler,
  type ReadySample,
  type Sent,
  seconds,
  signalHandling,
  sleep,
  watchOutboxLeftovers,
} from '../flow.js';
import { followUpDrained, followUpState } from '../follow-up.js';

/** What a signal refused while Redis is away answers, whole (CONTRACT, Under races, crashes and abuse). */
const REFUSED_BODY = JSON.stringify({
  detail: REDIS_UNAVAILABLE,
  code: 'signal_stream_unavailable',
});

import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import { describeStatuses, within } from '../requests.js';

/** The service bounds each Redis wait at 2 s (REDIS_WAIT_MS); 1 s of room for a busy machine. */
const SIGNAL_BOUND_MS = 3_000;
/**
 * Redis killed for a while under a steady flow of signals and new alerts over three
 * replicas, then started again, empty (the private Redis has no persistence). Signals fail
 * fast with the one documented answer, nothing dies, readiness names Redis, alerts keep
 * opening incidents whose follow-up is relayed once Redis is back, and signals accepted
 * after the outage are each handled once.
 */
export async function redisOutageScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('three replicas, Redis killed under load and started again empty');
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster(3);
    await outage(scenario, cluster, scale);
  } catch (error) {
    scenario.crashed(error);
  } finally {
    await cluster?.close();
  }
  return scenario.report;
}

async function outage(scenario: Scenario, cluster: Cluster, scale: ChaosScale) {
  const signalNamespace = 'chaos-redis-signals';
  const alertNamespace = 'chaos-redis-alerts';
  const downMs = scale.short ? 6_000 : 10_000;
  const flow = new Flow(cluster, {
    signalsPerSecond: 50,
    alertsPerSecond: 10,
    signalNamespace,
    alertNamespace,
    warningEvery: 5,
  });
  const readiness = new ReadinessSampler(cluster);
  flow.start();
  readiness.start();

  await sleep(scale.short ? 4_000 : 8_000);
  const killAt = performance.now();
  await cluster.redis.kill();
  const killedAt = performance.now();
  await sleep(downMs);
  const startAt = performance.now();
  await cluster.redis.start();
  const startedAt = performance.now();
  const relayed = watchOutboxLeftovers(cluster);
  const readyMs = await within(30_000, async () => readiness.allReadyAfter(startedAt) >= 0, 100);
  const allReadyAt =
    readyMs < 0 ? performance.now() : startedAt + readiness.allReadyAfter(startedAt);
  await sleep(scale.short ? 5_000 : 8_000);
  await flow.stop();
  await readiness.stop();

  scenario.figure('Redis down (kill to start)', seconds(startAt - killAt));
  scenario.figure(
    'flow',
    `${flow.of('signal').length} signals (1 in 5 warning) and ${flow.of('alert').length} new alerts over 3 replicas, 50 + 10 per second`,
  );

  const exited = anyExited(cluster);
  scenario.check(
    'no replica exited during or after the Redis outage',
    exited.length === 0,
    exited.length ? exited.join('; ') : '3 of 3 running',
  );

  // Requests sent while Redis was down (kill issued .. start returned).
  const during = (s: Sent) => s.at >= killAt && s.at < startedAt;
  const signals = flow.of('signal');
  // Until every replica is ready again: reconnecting takes ioredis a moment after the start.
  const duringSignals = signals.filter((s) => s.at >= killAt && s.at < allReadyAt);
  const wrong = duringSignals.filter(
    (s) =>
      !(s.answer.status === 200) &&
      !(s.answer.status === 503 && bodyText(s.answer.body) === REFUSED_BODY),
  );
  scenario.figure(
    'signals from the kill until all replicas were ready again',
    describeStatuses(duringSignals.map((s) => s.answer)),
  );
  scenario.check(
    // CONTRACT, Under races, crashes and abuse: a dependency that is away answers 503.
    `every signal from the kill until all replicas are ready again is answered 200 or 503 ${REFUSED_BODY}, nothing else`,
    duringSignals.length > 0 && wrong.length === 0,
    wrong.length
      ? `${wrong.length} of ${duringSignals.length} otherwise: ${distinctBodies(wrong)}`
      : `${duringSignals.length} signals`,
  );
  const leaky = flow.sent.filter((s) => DRIVER_WORDS.test(bodyText(s.answer.body)));
  scenario.check(
    'no answer at any time carries driver wording (ioredis, ECONNREFUSED, Connection is closed…)',
    leaky.length === 0,
    leaky.length
      ? `${leaky.length} answers: ${distinctBodies(leaky)}`
      : `${flow.sent.length} answers`,
  );
  const slowest = Math.max(0, ...duringSignals.map((s) => s.answer.ms));
  scenario.figure('signal latency from the kill until all ready again', latencies(duringSignals));
  scenario.check(
    `every signal from the kill until all ready again is answered within ${SIGNAL_BOUND_MS} ms (Redis waits are bounded at 2 s)`,
    slowest <= SIGNAL_BOUND_MS,
    `slowest ${slowest.toFixed(0)} ms`,
  );

  const alerts = flow.of('alert');
  const duringAlerts = alerts.filter(during);
  scenario.figure(
    'new alerts during the outage',
    describeStatuses(duringAlerts.map((s) => s.answer)),
  );
  scenario.figure('alert latency during the outage', latencies(duringAlerts));
  scenario.check(
    'every new alert during the outage is accepted (200): incidents and their outbox rows need only PostgreSQL',
    duringAlerts.length > 0 && duringAlerts.every((s) => s.answer.status === 200),
    `${duringAlerts.filter((s) => s.answer.status === 200).length} of ${duringAlerts.length}${
      duringAlerts.some((s) => s.answer.status !== 200)
        ? `; otherwise: ${distinctBodies(duringAlerts.filter((s) => s.answer.status !== 200))}`
        : ''
    }`,
  );
  const unanswered = flow.sent.filter((s) => s.answer.status === 0);
  scenario.check(
    'no request at any time went unanswered (hung past 15 s or cut off)',
    unanswered.length === 0,
    unanswered.length ? distinctBodies(unanswered) : `${flow.sent.length} requests answered`,
  );

  // Readiness: sampled every 250 ms on each replica.
  const settled = killedAt + 1_500;
  const downSamples = readiness.samples.filter((s) => s.at >= settled && s.end < startAt);
  const namesRedis = (s: ReadySample) => {
    const body = s.body as {
      failing?: string[];
      checks?: { redis?: { status?: string }; database?: { status?: string } };
    };
    return (
      s.status === 503 &&
      JSON.stringify(body?.failing) === '["redis"]' &&
      body?.checks?.redis?.status === 'down' &&
      body?.checks?.database?.status === 'up'
    );
  };
  const notNaming = downSamples.filter((s) => !namesRedis(s));
  scenario.check(
    'from 1.5 s after the kill until the start, every /readyz is 503 failing ["redis"], database up',
    downSamples.length > 0 && notNaming.length === 0,
    `${downSamples.length - notNaming.length} of ${downSamples.length} samples${
      notNaming.length
        ? `; otherwise: ${notNaming
            .slice(0, 2)
            .map((s) => `${s.status} ${bodyText(s.body).slice(0, 160)}`)
            .join('; ')}`
        : ''
    }`,
  );
  const firstDown = readiness.samples.find((s) => s.at >= killAt && s.status === 503);
  scenario.figure(
    'readiness first reported 503 after the kill',
    firstDown ? `${(firstDown.end - killAt).toFixed(0)} ms` : 'never',
  );
  scenario.figure(
    'Redis started to all 3 replicas ready (first /readyz 200 each)',
    readyMs < 0 ? 'not within 30 s' : seconds(readiness.allReadyAfter(startedAt)),
  );
  scenario.check(
    'all 3 replicas are ready again within 10 s of Redis starting, without a restart',
    readyMs >= 0 && readiness.allReadyAfter(startedAt) <= 10_000,
    readyMs < 0 ? 'not within 30 s' : seconds(readiness.allReadyAfter(startedAt)),
  );
  const afterReady = signals.filter((s) => s.at >= allReadyAt);
  scenario.figure(
    'signals once all replicas were ready again',
    describeStatuses(afterReady.map((s) => s.answer)),
  );
  scenario.check(
    'every signal sent once all replicas were ready again is accepted (200)',
    afterReady.length > 0 && afterReady.every((s) => s.answer.status === 200),
    `${afterReady.filter((s) => s.answer.status === 200).length} of ${afterReady.length}${
      afterReady.some((s) => s.answer.status !== 200)
        ? `; otherwise: ${distinctBodies(afterReady.filter((s) => s.answer.status !== 200))}`
        : ''
    }`,
  );
  const recovering = signals.filter((s) => s.at >= startedAt && s.at < allReadyAt);
  scenario.figure(
    'signals between the start and all ready',
    describeStatuses(recovering.map((s) => s.answer)),
  );

  // Signals: accepted before the kill (their entries lived only in Redis's memory), and
  // accepted after (or, if any, during) the outage.
  const acceptedBefore = signals.filter((s) => s.at < killAt && s.answer.status === 200);
  const acceptedLater = signals.filter((s) => s.at >= killAt && s.answer.status === 200);
  let state = {
    unhandled: acceptedLater,
    twice: [] as Sent[],
    warningWithoutIncident: [] as Sent[],
  };
  const handledMs = await within(
    30_000,
    async () => {
      state = await signalHandling(cluster, signalNamespace, acceptedLater);
      return state.unhandled.length === 0;
    },
    500,
  );
  const before = await signalHandling(cluster, signalNamespace, acceptedBefore);
  scenario.figure(
    'signals accepted before the kill, lost with Redis (no AOF on this private Redis)',
    `${before.unhandled.length} of ${acceptedBefore.length} (accepted, still in the stream unhandled when Redis was killed)`,
  );
  scenario.check(
    'signals accepted before the kill and handled were handled once (no hit count 2)',
    before.twice.length === 0 && before.warningWithoutIncident.length === 0,
    `${acceptedBefore.length - before.unhandled.length} handled, ${before.twice.length} twice, ${before.warningWithoutIncident.length} warning ones without incident`,
  );
  scenario.figure(
    'signals accepted during/after the outage, all handled after',
    handledMs < 0 ? 'not within 30 s' : seconds(handledMs),
  );
  scenario.check(
    'every signal accepted from the kill on is handled (an outcome row) within 30 s, exactly once',
    acceptedLater.length > 0 &&
      handledMs >= 0 &&
      state.twice.length === 0 &&
      state.warningWithoutIncident.length === 0,
    `${acceptedLater.length - state.unhandled.length} of ${acceptedLater.length} handled (${
      acceptedLater.filter((s) => s.at < startedAt).length
    } of them accepted during the outage), ${state.twice.length} counted twice, ${state.warningWithoutIncident.length} warning ones without incident${
      state.unhandled.length
        ? `; unhandled e.g. ${state.unhandled
            .slice(0, 3)
            .map((s) => `sig-${s.i} at +${(s.at - startedAt).toFixed(0)} ms from start`)
            .join(', ')}`
        : ''
    }`,
  );

  // Alerts: every accepted one has its incident; then the follow-up drains.
  const acceptedAlerts = alerts.filter((s) => s.answer.status === 200);
  const incidents = await missingIncidents(cluster, alertNamespace, acceptedAlerts);
  scenario.check(
    'every alert answered 200 (before, during or after) has its incident, and only one',
    incidents.missing.length === 0 &&
      incidents.doubled.length === 0 &&
      incidents.incidents === acceptedAlerts.length,
    `${incidents.incidents} incidents for ${acceptedAlerts.length} accepted alerts (${alerts.length} sent), ${incidents.missing.length} missing, ${incidents.doubled.length} hit twice`,
  );
  const leftovers = await relayed;
  scenario.figure(
    'outbox rows not completed when Redis started',
    `${leftovers.waiting}, ${leftovers.relayed} of them already taken by the queue Redis lost`,
  );
  scenario.figure(
    'Redis started to all of those completed (relayed, job done)',
    leftovers.ms < 0 ? 'not within 60 s' : seconds(leftovers.ms),
  );
  scenario.check(
    'the follow-up jobs pending in the outbox at the start all complete within 60 s of Redis starting',
    leftovers.ms >= 0,
    `${leftovers.waiting} rows, ${leftovers.ms < 0 ? `${leftovers.left} still waiting` : `completed in ${seconds(leftovers.ms)}`}`,
  );
  const backAt = performance.now();
  const drainedMs = await followUpDrained(cluster, alertNamespace, 60_000);
  const follow = await followUpState(cluster, alertNamespace);
  scenario.figure(
    'follow-up of the alerts drained (outbox relayed, repair evaluated), after the flow ended',
    drainedMs < 0 ? 'not within 60 s' : seconds(drainedMs),
  );
  scenario.check(
    'after Redis is back every alert incident is followed up exactly once and the outbox is empty (60 s)',
    drainedMs >= 0 && follow.doubled === 0,
    `${follow.evaluated} of ${follow.incidents} evaluated, ${follow.doubled} twice, ${follow.outboxWaiting} outbox rows waiting, ${seconds(performance.now() - backAt)} waited`,
  );
  const signalFollow = await followUpState(cluster, signalNamespace);
  scenario.figure(
    'follow-up of incidents raised by warning signals',
    `${signalFollow.evaluated} of ${signalFollow.incidents} evaluated, ${signalFollow.doubled} twice`,
  );
}
