import {
  CHAT_USER,
  callbackUpdate,
  issueAlertBody,
  peerEnv,
  postCallback,
  postTrackerDelivery,
} from '../chat-and-tracker.js';
import { type Cluster, startCluster } from '../cluster.js';
import { callbackDataOf, FaultyPeer } from '../peers.js';
import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import {
  type Answer,
  describeStatuses,
  inParallel,
  percentile,
  postAlert,
  within,
} from '../requests.js';

const statusOf = (answer: Answer) => (answer.body as { status?: string } | undefined)?.status;

const timing = (answers: Answer[]) => {
  const ms = answers.map((a) => a.ms);
  return `p50 ${percentile(ms, 50).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`;
};

/**
 * Races across three replicas: identical tracker deliveries at once yield one analysis, and
 * one card's approve button pressed many times at once yields one decision.
 */
export async function racesScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('races: tracker dedup and card nonce over 3 replicas');
  const chat = new FaultyPeer();
  let cluster: Cluster | undefined;
  try {
    await chat.start();
    cluster = await startCluster(3, { env: peerEnv(chat) });
    await trackerDedupRace(scenario, cluster, chat, scale.short ? 30 : 100);
    await nonceRace(scenario, cluster, chat, scale.short ? 12 : 30);
  } catch (error) {
    scenario.crashed(error);
  } finally {
    await cluster?.close();
    await chat.close();
  }
  return scenario.report;
}

async function trackerDedupRace(
  scenario: Scenario,
  cluster: Cluster,
  chat: FaultyPeer,
  count: number,
) {
  const issueId = `chaos-race-${Date.now()}`;
  const body = issueAlertBody(issueId);
  const answers = await inParallel(count, count, (i) =>
    postTrackerDelivery(cluster.replicas[i % 3]!.url, body),
  );
  const statuses: Record<string, number> = {};
  for (const answer of answers) {
    const status = statusOf(answer) ?? `HTTP ${answer.status}`;
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  const described = Object.entries(statuses)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');
  scenario.figure(`${count} identical tracker deliveries at once`, timing(answers));
  scenario.check(
    `${count} identical tracker deliveries over 3 replicas are all answered 200`,
    answers.every((a) => a.status === 200),
    describeStatuses(answers),
  );
  scenario.check(
    'exactly one of them is accepted and every other one deduplicated',
    statuses.accepted === 1 && statuses.deduplicated === count - 1,
    described,
  );

  // Every delivery is recorded as received; the losers also as deduplicated; the one
  // analysis links one approval.
  const linkedMs = await within(30_000, async () => (await stages(cluster, issueId)).linked > 0);
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // a late second analysis would show
  const recorded = await stages(cluster, issueId);
  scenario.figure(
    'delivery to approval linked',
    linkedMs < 0 ? 'not within 30 s' : `${(linkedMs / 1000).toFixed(1)} s`,
  );
  scenario.check(
    `the service recorded ${count} received and ${count - 1} deduplicated events for the issue`,
    recorded.received === count && recorded.deduplicated === count - 1,
    `${recorded.received} received, ${recorded.deduplicated} deduplicated`,
  );
  scenario.check(
    'one analysis ran: one approval_linked event naming one existing approval',
    recorded.linked === 1 && recorded.approvals.length === 1 && recorded.existing === 1,
    `${recorded.linked} approval_linked, approvals ${recorded.approvals.join(', ') || 'none'}, ${recorded.existing} found in approvals`,
  );
  const approvalId = recorded.approvals[0];
  if (approvalId) {
    await within(10_000, async () => chat.of('sendMessage', approvalId).length > 0);
    const cards = chat.of('sendMessage', approvalId);
    scenario.check(
      "the issue's approval card reached the chat once",
      cards.length === 1 && cards[0]!.status === 200,
      `${cards.length} sendMessage requests for ${approvalId}`,
    );
  }
}

async function stages(cluster: Cluster, issueId: string) {
  const rows = await cluster.sql<{ stage: string; n: string; approvals: string[] }>(
    `SELECT stage, count(*) AS n, array_agg(DISTINCT approval_id) FILTER (WHERE approval_id IS NOT NULL) AS approvals
       FROM external_alert_events WHERE issue_id = $1 GROUP BY stage`,
    [issueId],
  );
  const count = (stage: string) => Number(rows.find((r) => r.stage === stage)?.n ?? 0);
  const approvals = rows.find((r) => r.stage === 'approval_linked')?.approvals ?? [];
  const [existing] = await cluster.sql<{ n: string }>(
    'SELECT count(*) AS n FROM approvals WHERE id = ANY($1)',
    [approvals],
  );
  return {
    received: count('received'),
    deduplicated: count('deduplicated'),
    linked: count('approval_linked'),
    approvals,
    existing: Number(existing?.n ?? 0),
  };
}

async function nonceRace(scenario: Scenario, cluster: Cluster, chat: FaultyPeer, count: number) {
  const namespace = 'chaos-nonce-race';
  const opened = await postAlert(cluster.replicas[0]!.url, {
    alert_name: 'ChaosNonceRace',
    severity: 'warning',
    namespace,
    target_resource: 'nonce-race-0',
  });
  scenario.check('the incident alert is answered 200', opened.status === 200, `${opened.status}`);
  let approvalId = '';
  const cardMs = await within(30_000, async () => {
    const [row] = await cluster.sql<{ approval_id: string | null }>(
      'SELECT approval_id FROM incidents WHERE namespace = $1',
      [namespace],
    );
    approvalId = row?.approval_id ?? '';
    return approvalId !== '' && chat.of('sendMessage', approvalId).some((r) => r.status === 200);
  });
  scenario.figure(
    'alert to approval card at the chat',
    cardMs < 0 ? 'not within 30 s' : `${(cardMs / 1000).toFixed(1)} s`,
  );
  const card = chat.of('sendMessage', approvalId).find((r) => r.status === 200);
  const approve = card
    ? callbackDataOf(card.body).find((d) => d.startsWith('approve:'))
    : undefined;
  if (!scenario.check('the card arrived with an approve button', approve !== undefined)) return;
  const nonce = approve!.slice(approve!.lastIndexOf(':') + 1);
  // Wait for auto-repair's evaluation, so that the only decision can come from the chat.
  await within(20_000, async () => {
    const rows = await cluster.sql(
      "SELECT 1 FROM operation_log WHERE approval_id = $1 AND type = 'AUTO_REPAIR_TRIGGERED'",
      [approvalId],
    );
    return rows.length > 0;
  });
  const before = await approvalStatus(cluster, approvalId);
  scenario.check(
    'before the presses the approval is pending (auto-repair left it to a person)',
    before === 'pending',
    `status ${before}`,
  );

  const messageId = 1; // not checked by the service; the card's message id as the chat knows it
  const answers = await inParallel(count, count, (i) =>
    postCallback(cluster.replicas[i % 3]!.url, callbackUpdate(900_000 + i, approve!, messageId)),
  );
  const bodies = answers.map((a) => a.body as { ok?: boolean; message?: string } | undefined);
  const winners = bodies.filter((b) => b?.ok === true);
  const messages: Record<string, number> = {};
  for (const body of bodies) {
    const message = body?.message ?? 'no body';
    messages[message] = (messages[message] ?? 0) + 1;
  }
  scenario.figure(`${count} presses of one approve button at once`, timing(answers));
  scenario.figure(
    'answers',
    Object.entries(messages)
      .map(([m, n]) => `${n} × "${m}"`)
      .join(', '),
  );
  scenario.check(
    `all ${count} deliveries of the same approve callback are answered 200`,
    answers.every((a) => a.status === 200),
    describeStatuses(answers),
  );
  scenario.check(
    'exactly one delivery is answered ok (Approved)',
    winners.length === 1 && winners[0]?.message === 'Approved',
    `${winners.length} ok answers`,
  );

  const decisions = await cluster.sql<{ actor: string; channel: string; to_status: string }>(
    "SELECT actor, channel, to_status FROM approval_decisions WHERE approval_id = $1 AND decision = 'approve'",
    [approvalId],
  );
  scenario.check(
    'exactly one approve decision row for the approval, by the chat user through the chat',
    decisions.length === 1 &&
      decisions[0]!.actor === `tg_${CHAT_USER}` &&
      decisions[0]!.channel === 'chat',
    decisions.map((d) => `${d.actor} via ${d.channel} → ${d.to_status}`).join('; ') ||
      'no decision',
  );
  // One signature approves a medium approval; the dry-run execution it queues then moves it
  // on (to failed when no playbook fits the made-up alert): only those moves may follow.
  const moves = await cluster.sql<{ decision: string; from_status: string; to_status: string }>(
    'SELECT decision, from_status, to_status FROM approval_decisions WHERE approval_id = $1 ORDER BY seq',
    [approvalId],
  );
  const history = moves.map((m) => `${m.decision} ${m.from_status}→${m.to_status}`).join(', ');
  const after = await approvalStatus(cluster, approvalId);
  scenario.check(
    'one approval made it approved, and only the execution moved it on from there',
    moves[0]?.decision === 'approve' &&
      moves[0].to_status === 'approved' &&
      moves.slice(1).every((m) => m.decision !== 'approve' && m.decision !== 'reject') &&
      ['approved', 'executing', 'executed', 'failed'].includes(after),
    `status ${after}; ${history}`,
  );
  const cards = await cluster.sql<{ consumed_at: string | null }>(
    'SELECT consumed_at FROM chat_cards WHERE nonce = $1',
    [nonce],
  );
  scenario.check(
    "the card's nonce is consumed, once",
    cards.length === 1 && cards[0]!.consumed_at !== null,
    `${cards.length} card rows, consumed ${cards[0]?.consumed_at ? 'yes' : 'no'}`,
  );
  const answered = await within(10_000, async () => {
    return chat.of('answerCallbackQuery').length >= count;
  });
  scenario.check(
    'every press got its answerCallbackQuery at the chat',
    answered >= 0,
    `${chat.of('answerCallbackQuery').length} of ${count}`,
  );
}

async function approvalStatus(cluster: Cluster, approvalId: string): Promise<string> {
  const [row] = await cluster.sql<{ status: string }>(
    'SELECT status FROM approvals WHERE id = $1',
    [approvalId],
  );
  return row?.status ?? 'missing';
}
