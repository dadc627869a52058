import {
  type ActionName,
  AGENTS,
  type AgentName,
  type Consensus,
  type Opinion,
  type RiskLevel,
} from './analysis-types.js';

export interface ExpertFailure {
  agent: AgentName;
  error: string;
}

const RISK_ORDER: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];
/** Sums of fractional weights are compared with a tolerance, so 0.1 + 0.2 ties with 0.3. */
const EPSILON = 1e-9;

/** A missing, negative or non-finite weight counts as the default vote of 1. */
export function weightOf(opinion: Opinion): number {
  const weight = opinion.weight;
  return weight !== undefined && Number.isFinite(weight) && weight >= 0 ? weight : 1;
}

interface Group {
  action: ActionName;
  weight: number;
  confidence: number;
  /** Position in AGENTS of the group's first expert. */
  rank: number;
  members: Opinion[];
}

const rankOf = (agent: AgentName) => AGENTS.indexOf(agent);

function groupByAction(opinions: readonly Opinion[]): Group[] {
  const groups = new Map<ActionName, Group>();
  for (const opinion of opinions) {
    const group = groups.get(opinion.recommended_action) ?? {
      action: opinion.recommended_action,
      weight: 0,
      confidence: 0,
      rank: rankOf(opinion.agent),
      members: [],
    };
    group.weight += weightOf(opinion);
    group.confidence += opinion.confidence;
    group.rank = Math.min(group.rank, rankOf(opinion.agent));
    group.members.push(opinion);
    groups.set(opinion.recommended_action, group);
  }
  return [...groups.values()];
}

/**
 * Winner: the largest weight (CONTRACT, Analysis tasks). Ties, decided so the same opinions
 * always give the same answer: the larger summed confidence, then the group holding the
 * expert listed first in AGENTS (stability first: availability is what an incident costs now).
 */
function better(a: Group, b: Group): boolean {
  if (Math.abs(a.weight - b.weight) > EPSILON) return a.weight > b.weight;
  if (Math.abs(a.confidence - b.confidence) > EPSILON) return a.confidence > b.confidence;
  return a.rank < b.rank;
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * CONTRACT, Analysis tasks: "the action that the largest weight of experts recommends;
 * consensus_score is that weight's share, 0 to 1; the others' reasons are
 * dissenting_opinions". Among the winners, the kubectl is the most confident one that has
 * one, and the risk is the gravest any of them sees. `opinions` must not be empty.
 */
export function buildConsensus(
  opinions: readonly Opinion[],
  failures: readonly ExpertFailure[],
  consensusId: string,
): Consensus {
  if (opinions.length === 0) throw new Error('consensus needs at least one opinion');
  const ordered = [...opinions].sort((a, b) => rankOf(a.agent) - rankOf(b.agent));
  const groups = groupByAction(ordered);
  let winner = groups[0]!;
  for (const group of groups.slice(1)) if (better(group, winner)) winner = group;

  const total = ordered.reduce((sum, opinion) => sum + weightOf(opinion), 0);
  const supporters = winner.members;
  const byConfidence = [...supporters].sort(
    (a, b) => b.confidence - a.confidence || rankOf(a.agent) - rankOf(b.agent),
  );
  const kubectl = byConfidence.find((opinion) => opinion.recommended_kubectl !== null);
  const risk = supporters.reduce<RiskLevel>(
    (gravest, opinion) =>
      RISK_ORDER.indexOf(opinion.risk_level) > RISK_ORDER.indexOf(gravest)
        ? opinion.risk_level
        : gravest,
    'low',
  );
  const score = total > EPSILON ? round4(winner.weight / total) : 0;
  const dissenters = ordered.filter((opinion) => opinion.recommended_action !== winner.action);

  const heard = supporters.map((opinion) => opinion.agent).join(', ');
  const notHeard = failures.length
    ? ` Not heard: ${failures.map((failure) => `${failure.agent} (${failure.error})`).join('; ')}.`
    : '';
  const finalReasoning =
    `${winner.action} recommended by ${heard} (weight ${round4(winner.weight)} of ${round4(total)}, ` +
    `consensus ${score}). ${supporters.map((o) => `${o.agent}: ${o.reasoning}`).join(' ')}${notHeard}`;

  return {
    consensus_id: consensusId,
    recommended_action: winner.action,
    recommended_kubectl: kubectl?.recommended_kubectl ?? null,
    risk_level: risk,
    final_reasoning: finalReasoning,
    consensus_score: score,
    opinions: ordered.map((opinion) => ({ ...opinion, weight: weightOf(opinion) })),
    dissenting_opinions: dissenters.map(
      (opinion) =>
        `${opinion.agent} recommends ${opinion.recommended_action}: ${opinion.reasoning}`,
    ),
  };
}
