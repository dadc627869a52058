import type { Config } from '../../config.js';
import { createRulesAnalyzer } from '../../features/diagnosis/rules-analyzer.js';
import type { Analyzer } from '../../ports/analyzer.js';
import { createOpenAiAnalyzer } from './openai-analyzer.js';

export type AnalyzerConfig = Pick<Config, 'analyzer' | 'llmBaseUrl' | 'llmApiKey' | 'llmModel'>;

/** CONTRACT `ANALYZER`: `rules` (built-in, offline, the default) or `openai`. */
export function createAnalyzer(config: AnalyzerConfig): Analyzer {
  if (config.analyzer === 'rules') return createRulesAnalyzer();
  // loadConfig already refuses ANALYZER=openai without LLM_BASE_URL; this guards other callers.
  if (!config.llmBaseUrl) throw new Error('LLM_BASE_URL is required when ANALYZER=openai');
  return createOpenAiAnalyzer({
    baseUrl: config.llmBaseUrl,
    apiKey: config.llmApiKey,
    model: config.llmModel,
  });
}
