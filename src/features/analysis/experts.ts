import type { AgentName, AnalysisSubject, Expert, Opinion } from './analysis-types.js';
import { costOpinion } from './cost-rules.js';
import { performanceOpinion } from './performance-rules.js';
import { securityOpinion } from './security-rules.js';
import { stabilityOpinion } from './stability-rules.js';

export type ExpertOutcome =
  | { agent: AgentName; opinion: Opinion; error?: undefined }
  | { agent: AgentName; opinion?: undefined; error: string };

function ruleExpert(agent: AgentName, opinionOf: (subject: AnalysisSubject) => Opinion): Expert {
  return { agent, analyze: async (subject) => opinionOf(subject) };
}

/**
 * The offline experts (docs/api.md, Analysis tasks: rule-based and offline); with ANALYZER=openai,
 * create-services gives the analysis feature the model experts instead.
 */
export const RULE_EXPERTS: readonly Expert[] = [
  ruleExpert('stability', stabilityOpinion),
  ruleExpert('security', securityOpinion),
  ruleExpert('cost', costOpinion),
  ruleExpert('performance', performanceOpinion),
];

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs every expert at once. One failing expert is an outcome, not a failure of the whole
 * run. `onSettled` sees each outcome as it arrives, one at a time (the progress events are
 * numbered in that order); if it throws, the run rejects with its error.
 */
export async function runExperts(
  experts: readonly Expert[],
  subject: AnalysisSubject,
  signal: AbortSignal,
  onSettled: (outcome: ExpertOutcome) => Promise<void>,
): Promise<ExpertOutcome[]> {
  let reported = Promise.resolve();
  return Promise.all(
    experts.map(async (expert) => {
      let outcome: ExpertOutcome;
      try {
        const opinion = await expert.analyze(subject, signal);
        outcome = { agent: expert.agent, opinion: { ...opinion, agent: expert.agent } };
      } catch (error) {
        outcome = { agent: expert.agent, error: reasonOf(error) };
      }
      reported = reported.then(() => onSettled(outcome));
      await reported;
      return outcome;
    }),
  );
}
