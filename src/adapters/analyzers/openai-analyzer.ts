import type { Analyzer, ErrorAnalysis, ErrorContext } from '../../ports/analyzer.js';
import { chatCompletionsUrl, requestChatCompletion } from './chat-completions.js';

/**
 * The analyzer for `ANALYZER=openai` (CONTRACT): any OpenAI-compatible chat-completions
 * endpoint. `LLM_BASE_URL` is the API root including its version, e.g.
 * `https://api.openai.com/v1` or `http://localhost:11434/v1`; this appends
 * `/chat/completions` (a URL that already ends in `/chat/completions` is used as is).
 */

/** Used when `LLM_MODEL` is unset: small, cheap, and supports JSON mode. */
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

export interface OpenAiAnalyzerOptions {
  baseUrl: string;
  apiKey?: string;
  model?: string;
  fetchImpl?: typeof fetch;
}

const INVALID = 'LLM response is not a valid analysis';
const TEXT_FIELDS = ['root_cause', 'impact', 'fix_suggestion', 'prevention'] as const;
/** How much of an error body goes into the thrown message: enough to see the reason, not a page. */
const BODY_EXCERPT = 300;

const SYSTEM_PROMPT = [
  'You are a senior site reliability engineer diagnosing a production error reported by an error tracker.',
  'The user message is the error context as JSON: title, culprit, level, count, project, platform, message, tags, exception {type, value} and the last stack frames (oldest first, the last frame is nearest the error).',
  'Answer with one JSON object and nothing else, with exactly these keys:',
  '"root_cause" (string: the most likely cause, naming the specific file, function, key, host or table involved),',
  '"impact" (string: who or what is affected and how badly, considering level and count),',
  '"fix_suggestion" (string: concrete steps to fix it now),',
  '"prevention" (string: how to stop it from recurring),',
  '"confidence" (number from 0 to 1: how sure you are of the root cause given only this context).',
  'Be specific to this error; say so plainly when the context is not enough to be sure.',
].join('\n');

export function createOpenAiAnalyzer(options: OpenAiAnalyzerOptions): Analyzer {
  const model = options.model ?? DEFAULT_LLM_MODEL;
  const provider = `openai:${model}`;
  const endpoint = { ...options, model, url: chatCompletionsUrl(options.baseUrl) };
  return {
    provider,
    async analyze(context: ErrorContext, signal: AbortSignal): Promise<ErrorAnalysis> {
      const body = await requestChatCompletion(
        endpoint,
        SYSTEM_PROMPT,
        JSON.stringify(context),
        signal,
      );
      return { ...parseAnalysis(contentOf(body)), analyzed_by: provider };
    },
  };
}

export { chatCompletionsUrl };

function contentOf(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`${INVALID}: the HTTP body is not JSON: ${excerpt(body)}`);
  }
  const content = (parsed as { choices?: { message?: { content?: unknown } }[] } | null)
    ?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error(`${INVALID}: no choices[0].message.content`);
  return content;
}

/**
 * Validates the model's JSON. The four texts must be non-empty strings. The confidence may be a
 * number or a numeric string; values above 1 up to 100 (and `"87%"`) are read as percentages,
 * because models often answer that way; the result is clamped to 0-1.
 */
export function parseAnalysis(content: string): Omit<ErrorAnalysis, 'analyzed_by'> {
  let parsed: unknown;
  try {
    // Some compatible servers ignore response_format and wrap the JSON in a code fence. JSON
    // allows the whitespace inside it: `\s*([\s\S]*?)\s*` let three quantifiers share every
    // blank, cubic on a long run of them.
    parsed = JSON.parse(content.trim().replace(/^```(?:json)?([\s\S]*)```$/i, '$1'));
  } catch {
    throw new Error(`${INVALID}: content is not JSON: ${excerpt(content)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${INVALID}: content is not a JSON object`);
  }
  const record = parsed as Record<string, unknown>;
  const texts = {} as Record<(typeof TEXT_FIELDS)[number], string>;
  for (const field of TEXT_FIELDS) {
    const value = record[field];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new Error(`${INVALID}: "${field}" must be a non-empty string`);
    }
    texts[field] = value.trim();
  }
  return { ...texts, confidence: confidenceOf(record.confidence) };
}

function confidenceOf(raw: unknown): number {
  let value: number;
  let percent = false;
  if (typeof raw === 'number') {
    value = raw;
  } else if (
    typeof raw === 'string' &&
    // The blanks after the `%` belong to its group: `\s*%?\s*` split a run of blanks every way.
    /^\s*-?\d+(?:\.\d+)?\s*(?:%\s*)?$/.test(raw)
  ) {
    percent = raw.includes('%');
    value = Number.parseFloat(raw);
  } else {
    throw new Error(`${INVALID}: "confidence" must be a number`);
  }
  if (!Number.isFinite(value)) throw new Error(`${INVALID}: "confidence" must be a finite number`);
  if (percent || (value > 1 && value <= 100)) value /= 100;
  return Math.min(1, Math.max(0, value));
}

function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return '(empty body)';
  return line.length <= BODY_EXCERPT ? line : `${line.slice(0, BODY_EXCERPT)}…`;
}
