import {
  ACTIONS,
  AGENTS,
  type AgentName,
  type Expert,
  type Opinion,
  type RiskLevel,
} from '../../features/analysis/analysis-types.js';
import { ownValue } from '../../support/own-value.js';
import { chatCompletionsUrl, requestChatCompletion } from './chat-completions.js';
import { DEFAULT_LLM_MODEL } from './openai-analyzer.js';
import type { Resilience } from './resilient-analyzer.js';

/**
 * The experts for ANALYZER=openai: each is one chat-completions call with its own system
 * prompt, made through the shared `run` (timeout, concurrency limit, breaker).
 */
export interface ModelExpertOptions {
  baseUrl: string;
  apiKey?: string;
  model?: string;
  run: Resilience['run'];
  fetchImpl?: typeof fetch;
}

const FOCUS: Record<AgentName, string> = {
  stability:
    'You are the STABILITY expert: restore availability soonest, and prefer a lasting fix when the history shows the incident keeps coming back or repairs keep failing.',
  security:
    'You are the SECURITY expert: look for signs of attacks, leaked or rejected credentials, vulnerabilities and certificate problems; never recommend a change that destroys evidence of an attack.',
  cost: 'You are the COST expert: weigh what each fix costs to run and to repeat; add capacity only when the severity or saturation justifies it, remove idle capacity, and call recurring toil what it is.',
  performance:
    'You are the PERFORMANCE expert: read the metrics in the context (CPU, memory, latency, error rate, restarts, replicas) and fix the resource that is the bottleneck.',
};

const ANSWER_FORMAT = [
  'The user message is the incident as JSON: severity (P0 most urgent), namespace, affected_services, alert_names, alert_types, hit_count, message, labels, frequency (occurrence counts and escalation level), repairs (past automatic repairs) and context (free-form, often metrics).',
  'Answer with one JSON object and nothing else, with exactly these keys:',
  `"recommended_action" (one of: ${ACTIONS.join(', ')}),`,
  '"recommended_kubectl" (one kubectl command for the first affected service, or null when none fits),',
  '"risk_level" (one of: low, medium, high, critical),',
  '"reasoning" (string: why, specific to this incident),',
  '"confidence" (number from 0 to 1).',
].join('\n');

export function systemPromptFor(agent: AgentName): string {
  return `${FOCUS[agent]}\n${ANSWER_FORMAT}`;
}

/** USD per million tokens (input, output); a model not listed is priced at 0 (local models). */
const PRICES: Record<string, readonly [number, number]> = {
  'gpt-4o-mini': [0.15, 0.6],
  'gpt-4o': [2.5, 10],
  'gpt-4.1-mini': [0.4, 1.6],
  'gpt-4.1': [2, 8],
};

const INVALID = 'LLM response is not a valid opinion';
const RISKS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];

interface Completion {
  content: string;
  promptTokens: number;
  completionTokens: number;
}

function completionOf(body: string): Completion {
  let parsed: {
    choices?: { message?: { content?: unknown } }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  } | null;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`${INVALID}: the HTTP body is not JSON`);
  }
  const content = parsed?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error(`${INVALID}: no choices[0].message.content`);
  const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
  return {
    content,
    promptTokens: count(parsed?.usage?.prompt_tokens),
    completionTokens: count(parsed?.usage?.completion_tokens),
  };
}

/** Validates the model's JSON into an opinion (without tokens and cost). */
export function parseOpinion(
  agent: AgentName,
  content: string,
): Omit<Opinion, 'tokens' | 'cost' | 'weight'> {
  let record: Record<string, unknown>;
  try {
    // Some compatible servers ignore response_format and wrap the JSON in a code fence. JSON
    // allows the whitespace inside it: `\s*([\s\S]*?)\s*` let three quantifiers share every
    // blank, cubic on a long run of them.
    record = JSON.parse(content.trim().replace(/^```(?:json)?([\s\S]*)```$/i, '$1'));
  } catch {
    throw new Error(`${INVALID}: content is not JSON`);
  }
  if (typeof record !== 'object' || record === null) throw new Error(`${INVALID}: not an object`);
  const action = record.recommended_action;
  if (!ACTIONS.includes(action as never)) {
    throw new Error(`${INVALID}: recommended_action must be one of ${ACTIONS.join(', ')}`);
  }
  const risk = String(record.risk_level ?? '').toLowerCase();
  if (!RISKS.includes(risk as RiskLevel)) throw new Error(`${INVALID}: bad risk_level`);
  const reasoning = record.reasoning;
  if (typeof reasoning !== 'string' || reasoning.trim() === '') {
    throw new Error(`${INVALID}: "reasoning" must be a non-empty string`);
  }
  const confidence = Number(record.confidence);
  if (!Number.isFinite(confidence)) throw new Error(`${INVALID}: "confidence" must be a number`);
  const kubectl = record.recommended_kubectl;
  return {
    agent,
    recommended_action: action as Opinion['recommended_action'],
    // Only a kubectl command is taken; anything else would be run by whoever trusts the field.
    recommended_kubectl:
      typeof kubectl === 'string' && /^kubectl\s/.test(kubectl.trim()) ? kubectl.trim() : null,
    risk_level: risk as RiskLevel,
    reasoning: reasoning.trim(),
    confidence: Math.min(1, Math.max(0, confidence > 1 ? confidence / 100 : confidence)),
  };
}

export function createModelExperts(options: ModelExpertOptions): Expert[] {
  const model = options.model ?? DEFAULT_LLM_MODEL;
  const endpoint = {
    url: chatCompletionsUrl(options.baseUrl),
    model,
    apiKey: options.apiKey,
    fetchImpl: options.fetchImpl,
  };
  const [inputPrice, outputPrice] = ownValue(PRICES, model) ?? [0, 0];

  const call = async (agent: AgentName, subject: unknown, signal: AbortSignal) => {
    const body = await requestChatCompletion(
      endpoint,
      systemPromptFor(agent),
      JSON.stringify(subject),
      signal,
    );
    const completion = completionOf(body);
    const cost =
      (completion.promptTokens * inputPrice + completion.completionTokens * outputPrice) / 1e6;
    return {
      ...parseOpinion(agent, completion.content),
      weight: 1,
      tokens: completion.promptTokens + completion.completionTokens,
      cost: Math.round(cost * 1e6) / 1e6,
    };
  };

  return AGENTS.map((agent) => ({
    agent,
    async analyze(subject, signal) {
      const opinion = await options.run((inner) => call(agent, subject, inner), signal);
      if (opinion === null) throw new Error('skipped: the analyzer circuit breaker is open');
      return opinion;
    },
  }));
}
