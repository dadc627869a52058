import { type Cluster, startCluster } from '../cluster.js';
import {
  anyExited,
  bodyText,
  codeOf,
  DRIVER_WORDS,
  detailOf,
  distinctBodies,
  Flow,
  latencies,
  missingIncidents,
  ReadinessSampler,
  type ReadySample,
  type Sent,
  seconds,
  signalHandling,
  sleep,
} from '../flow.js';
import { followUpDrained, followUpState } from '../follow-up.js';
import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import { describeStatuses, within } from '../requests.js';

/**
 * The bound on a request's answer while PostgreSQL is down. The service's pool has no
 * connect timeout of its own, but a stopped server refuses connections at once, a server
 * shutting down terminates its backends at once ("terminating connection due to
 * administrator command") and one starting up answers "the database system is starting up"
 * at once: every failure is immediate, so 2 s is already generous (a loaded 2-core machine
 * runs three replicas, PostgreSQL, Redis and this client); a hang would show as 15 s.
 */
const FAIL_FAST_MS = 2_000;

/**
 * PostgreSQL stopped (`pg_ctl stop -m fast`: every backend terminated "due to administrator
 * command") for ~5 s under a steady flow of new alerts and signals over three replicas, then
 * started again. The original finding: every replica died of an unhandled pool 'error'
 * event. Now: nothing dies, requests fail fast with a readable 5xx, readiness names the
 * database, and everything recovers by itself: alerts accepted, incidents followed up,
 * signals taken while the database was away handled once it is back.
 */
export async function postgresRestartScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('three replicas, PostgreSQL stopped under load and started again');
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster(3);
    await restart(scenario, cluster, scale);
  } catch (error) {
    scenario.crashed(error);
  } finally {
    await cluster?.close();
  }
  return scenario.report;
}

async function restart(scenario: Scenario, cluster: Cluster, scale: ChaosScale) {
  const signalNamespace = 'chaos-pg-signals';
  const alertNamespace = 'chaos-pg-alerts';
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
  // halt() and start() run pg_ctl synchronously: this process's event loop (the flow, the
  // readiness sampler, the clocks of answers in flight) stands still for as long as each
  // call lasts. Requests in flight across those windows have inflated latencies; they are
  // left out of the latency bound and counted apart.
  const haltAt = performance.now();
  await cluster.postgres.halt();
  const haltedAt = performance.now();
  await sleep(5_000);
  const startAt = performance.now();
  await cluster.postgres.start();
  const startedAt = performance.now();
  const blocked: [number, number][] = [
    [haltAt, haltedAt],
    [startAt, startedAt],
  ];
  const readyMs = await within(30_000, async () => readiness.allReadyAfter(startedAt) >= 0, 100);
  const allReadyAt =
    readyMs < 0 ? performance.now() : startedAt + readiness.allReadyAfter(startedAt);
  await sleep(scale.short ? 5_000 : 8_000);
  await flow.stop();
  await readiness.stop();

  scenario.figure('PostgreSQL down (halt called to start returned)', seconds(startedAt - haltAt));
  scenario.figure(
    'event loop of this client held by pg_ctl',
    `stop ${(haltedAt - haltAt).toFixed(0)} ms, start ${(startedAt - startAt).toFixed(0)} ms`,
  );
  scenario.figure(
    'flow',
    `${flow.of('signal').length} signals (1 in 5 warning) and ${flow.of('alert').length} new alerts over 3 replicas, 50 + 10 per second`,
  );

  const exited = anyExited(cluster);
  scenario.check(
    'no replica exited when PostgreSQL terminated its connections, stayed down and came back',
    exited.length === 0,
    exited.length ? exited.join('; ') : '3 of 3 running',
  );

  // Alerts sent while PostgreSQL was down (halt called .. start returned).
  const during = (s: Sent) => s.end > haltAt && s.at < startedAt;
  const overlapsBlock = (s: Sent) => blocked.some(([from, to]) => s.at < to && s.end > from);
  const alerts = flow.of('alert');
  const duringAlerts = alerts.filter(during);
  const failed = duringAlerts.filter((s) => s.answer.status !== 200);
  scenario.figure(
    'new alerts during the outage',
    describeStatuses(duringAlerts.map((s) => s.answer)),
  );
  const unreadable = failed.filter(
    (s) =>
      s.answer.status !== 503 ||
      detailOf(s.answer.body) !== 'Database unavailable' ||
      codeOf(s.answer.body) !== 'database_unavailable' ||
      DRIVER_WORDS.test(bodyText(s.answer.body)),
  );
  scenario.check(
    'every alert refused during the outage gets 503 {"detail":"Database unavailable","code":"database_unavailable"}, no driver wording',
    failed.length > 0 && unreadable.length === 0,
    `${failed.length} refused: ${distinctBodies(failed)}${
      unreadable.length ? `; unreadable: ${distinctBodies(unreadable)}` : ''
    }`,
  );
  const timed = duringAlerts.filter((s) => !overlapsBlock(s));
  const slowest = Math.max(0, ...timed.map((s) => s.answer.ms));
  scenario.figure(
    'alert latency during the outage (outside the pg_ctl calls)',
    `${latencies(timed)}; ${duringAlerts.length - timed.length} in flight across a pg_ctl call, max ${Math.max(
      0,
      ...duringAlerts.filter(overlapsBlock).map((s) => s.answer.ms),
    ).toFixed(0)} ms including the held event loop`,
  );
  scenario.check(
    `every alert during the outage is answered within ${FAIL_FAST_MS} ms (failures are immediate: refused or terminated connections)`,
    timed.length > 0 && slowest <= FAIL_FAST_MS,
    `slowest ${slowest.toFixed(0)} ms of ${timed.length}`,
  );
  const signals = flow.of('signal');
  const duringSignals = signals.filter(during);
  scenario.figure(
    'signals during the outage (they need Redis only)',
    `${describeStatuses(duringSignals.map((s) => s.answer))}; ${latencies(
      duringSignals.filter((s) => !overlapsBlock(s)),
    )}`,
  );
  scenario.check(
    'every signal during the outage is accepted (200): the stream is in Redis',
    duringSignals.length > 0 && duringSignals.every((s) => s.answer.status === 200),
    `${duringSignals.filter((s) => s.answer.status === 200).length} of ${duringSignals.length}${
      duringSignals.some((s) => s.answer.status !== 200)
        ? `; otherwise: ${distinctBodies(duringSignals.filter((s) => s.answer.status !== 200))}`
        : ''
    }`,
  );
  const leaky = flow.sent.filter((s) => DRIVER_WORDS.test(bodyText(s.answer.body)));
  scenario.check(
    'no answer at any time carries driver wording (terminating connection, ECONNREFUSED…)',
    leaky.length === 0,
    leaky.length
      ? `${leaky.length} answers: ${distinctBodies(leaky)}`
      : `${flow.sent.length} answers`,
  );
  const unanswered = flow.sent.filter((s) => s.answer.status === 0);
  scenario.check(
    'no request at any time went unanswered (hung past 15 s or cut off)',
    unanswered.length === 0,
    unanswered.length ? distinctBodies(unanswered) : `${flow.sent.length} requests answered`,
  );

  // Readiness, sampled every 250 ms on each replica.
  const downSamples = readiness.samples.filter((s) => s.at >= haltedAt + 500 && s.end < startAt);
  const namesDatabase = (s: ReadySample) => {
    const body = s.body as {
      failing?: string[];
      checks?: { redis?: { status?: string }; database?: { status?: string } };
    };
    return (
      s.status === 503 &&
      JSON.stringify(body?.failing) === '["database"]' &&
      body?.checks?.database?.status === 'down' &&
      body?.checks?.redis?.status === 'up'
    );
  };
  const notNaming = downSamples.filter((s) => !namesDatabase(s));
  scenario.check(
    'while PostgreSQL is stopped every /readyz is 503 failing ["database"], redis up',
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
  const recoveryMs = readiness.allReadyAfter(startedAt);
  scenario.figure(
    'PostgreSQL started to all 3 replicas ready (first /readyz 200 each)',
    recoveryMs < 0 ? 'not within 30 s' : seconds(recoveryMs),
  );
  scenario.check(
    'all 3 replicas are ready again within 10 s of PostgreSQL starting, without a restart',
    recoveryMs >= 0 && recoveryMs <= 10_000,
    recoveryMs < 0 ? 'not within 30 s' : seconds(recoveryMs),
  );
  const afterReady = alerts.filter((s) => s.at >= allReadyAt);
  scenario.check(
    'every alert sent once all replicas were ready again is accepted (200)',
    afterReady.length > 0 && afterReady.every((s) => s.answer.status === 200),
    `${afterReady.filter((s) => s.answer.status === 200).length} of ${afterReady.length}${
      afterReady.some((s) => s.answer.status !== 200)
        ? `; otherwise: ${distinctBodies(afterReady.filter((s) => s.answer.status !== 200))}`
        : ''
    }`,
  );
  const firstAccepted = alerts.find((s) => s.at >= startedAt && s.answer.status === 200);
  scenario.figure(
    'PostgreSQL started to the first alert accepted again',
    firstAccepted ? seconds(firstAccepted.end - startedAt) : 'none',
  );

  // Every accepted alert has its incident; the follow-up of all of them drains.
  const acceptedAlerts = alerts.filter((s) => s.answer.status === 200);
  const incidents = await missingIncidents(cluster, alertNamespace, acceptedAlerts);
  scenario.check(
    'every alert answered 200 (before, during or after) has its incident, and only one',
    incidents.missing.length === 0 &&
      incidents.doubled.length === 0 &&
      incidents.incidents === acceptedAlerts.length,
    `${incidents.incidents} incidents for ${acceptedAlerts.length} accepted alerts (${alerts.length} sent), ${incidents.missing.length} missing, ${incidents.doubled.length} hit twice`,
  );
  const drainedMs = await followUpDrained(cluster, alertNamespace, 60_000);
  const follow = await followUpState(cluster, alertNamespace);
  scenario.figure(
    'follow-up of the alerts drained, after the flow ended',
    drainedMs < 0 ? 'not within 60 s' : seconds(drainedMs),
  );
  scenario.check(
    'every alert incident is followed up exactly once, the outbox is empty, none executing (60 s)',
    drainedMs >= 0 && follow.doubled === 0 && follow.executing === 0,
    `${follow.evaluated} of ${follow.incidents} evaluated, ${follow.doubled} twice, ${follow.executing} executing, ${follow.outboxWaiting} outbox rows waiting`,
  );

  // Signals accepted at any time, some taken off the stream while the database was away.
  const acceptedSignals = signals.filter((s) => s.answer.status === 200);
  let state = {
    unhandled: acceptedSignals,
    twice: [] as Sent[],
    warningWithoutIncident: [] as Sent[],
  };
  const waitFrom = performance.now();
  let unhandledAtEnd = -1;
  const handledMs = await within(
    60_000,
    async () => {
      state = await signalHandling(cluster, signalNamespace, acceptedSignals);
      if (unhandledAtEnd < 0) unhandledAtEnd = state.unhandled.length;
      return state.unhandled.length === 0;
    },
    500,
  );
  // A consumer that read entries while the database was away holds them unacknowledged;
  // they go to a consumer again only once idle for claimIdleMs (30 s) through XAUTOCLAIM.
  scenario.figure(
    'accepted signals not yet handled when the flow ended (held by a consumer that failed them)',
    `${unhandledAtEnd} of ${acceptedSignals.length}`,
  );
  scenario.figure(
    'PostgreSQL started to every accepted signal handled',
    handledMs < 0
      ? 'not within 60 s of the flow ending'
      : seconds(waitFrom + handledMs - startedAt),
  );
  scenario.check(
    'every signal answered 200 is handled (an outcome row), exactly once, within 60 s of the flow ending',
    acceptedSignals.length > 0 &&
      handledMs >= 0 &&
      state.twice.length === 0 &&
      state.warningWithoutIncident.length === 0,
    `${acceptedSignals.length - state.unhandled.length} of ${acceptedSignals.length} handled, ${state.twice.length} counted twice, ${state.warningWithoutIncident.length} warning ones without incident${
      state.unhandled.length
        ? `; unhandled e.g. ${state.unhandled
            .slice(0, 3)
            .map((s) => `sig-${s.i} sent ${((s.at - haltAt) / 1000).toFixed(1)} s from the halt`)
            .join(', ')}`
        : ''
    }`,
  );
}
