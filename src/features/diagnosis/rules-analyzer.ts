import type { Analyzer, ErrorAnalysis, ErrorContext } from '../../ports/analyzer.js';
import { clip, exceptionText, failingLineOf, locationOf, topInAppFrame } from './error-location.js';
import { FAILURE_SIGNATURES } from './failure-signatures.js';
import type { FailureSignature, MatchField } from './signature-types.js';

/**
 * The built-in offline analyzer (CONTRACT: `ANALYZER=rules`). It matches the error against a
 * table of known failure signatures and fills that signature's texts with what it found:
 * the failing key, host, table or module, and the top in-app frame. Pure and deterministic.
 */

export const RULES_PROVIDER = 'rules';

/** Below this a signature does not match: one generic exception type alone is not a diagnosis. */
const MIN_SCORE = 0.25;
/** Texts longer than this are cut before matching; no diagnosis needs more, and it bounds regex work. */
const MAX_TEXT = 2_000;
/** Counts at and above these read as widespread / recurring in the impact. */
const WIDESPREAD_COUNT = 100;
const RECURRING_COUNT = 10;

/** Confidence bands by the kind of evidence (see {@link confidenceOf}). */
const BANDS = {
  /** exception type and error text agree */
  strong: [0.8, 0.92],
  /** only the type or only the text matched */
  partial: [0.55, 0.75],
  /** only the culprit or frames matched */
  location: [0.35, 0.5],
} as const;

type Texts = Record<MatchField, string[]>;
type Evidence = { type: number; text: number; location: number };

export interface Diagnosis {
  /** The matched signature's id, or null when the generic analysis was used. */
  signatureId: string | null;
  analysis: ErrorAnalysis;
}

export function createRulesAnalyzer(): Analyzer {
  return {
    provider: RULES_PROVIDER,
    async analyze(context: ErrorContext, signal: AbortSignal): Promise<ErrorAnalysis> {
      signal.throwIfAborted();
      const { signatureId, analysis } = diagnoseError(context);
      return signatureId === null ? analysis : { ...analysis, error_signature: signatureId };
    },
  };
}

/** The rules analysis plus the id of the signature that produced it. */
export function diagnoseError(context: ErrorContext): Diagnosis {
  const texts = textsOf(context);
  let best: { signature: FailureSignature; evidence: Evidence; score: number } | null = null;
  for (const signature of FAILURE_SIGNATURES) {
    const evidence = evidenceFor(signature, texts);
    const score = evidence.type + evidence.text + evidence.location;
    // Strictly greater: on a tie the earlier signature in the table wins (deterministic).
    if (score >= MIN_SCORE && (best === null || score > best.score)) {
      best = { signature, evidence, score };
    }
  }
  if (best === null) return { signatureId: null, analysis: genericAnalysis(context) };
  const subject = subjectOf(best.signature, texts);
  const values = placeholders(context, subject ?? best.signature.subject.unknown);
  const failingLine = failingLineOf(context);
  return {
    signatureId: best.signature.id,
    analysis: {
      root_cause:
        fill(best.signature.rootCause, values) +
        (failingLine === null ? '' : ` Failing line: \`${failingLine}\`.`),
      impact: impactOf(context, fill(best.signature.impact, values)),
      fix_suggestion: fill(best.signature.fix, values),
      prevention: fill(best.signature.prevention, values),
      confidence: confidenceOf(best.evidence, best.score, subject !== null),
      analyzed_by: RULES_PROVIDER,
    },
  };
}

function textsOf(context: ErrorContext): Texts {
  const cut = (values: (string | null | undefined)[]) =>
    values
      .filter((v): v is string => typeof v === 'string' && v !== '')
      .map((v) => v.slice(0, MAX_TEXT));
  // Nearest frame first, so a frame extractor reads the failing line before its callers.
  const frames = [...context.stacktrace].reverse();
  return {
    type: cut([context.exception?.type]),
    value: cut([context.exception?.value]),
    title: cut([context.title]),
    message: cut([context.message]),
    culprit: cut([context.culprit]),
    frame: cut(frames.flatMap((frame) => [frame.context_line, frame.function, frame.filename])),
  };
}

const KIND_OF: Record<MatchField, keyof Evidence> = {
  type: 'type',
  value: 'text',
  title: 'text',
  message: 'text',
  culprit: 'location',
  frame: 'location',
};

/** The strongest hit per evidence kind, so one message repeated in value and title counts once. */
function evidenceFor(signature: FailureSignature, texts: Texts): Evidence {
  const evidence: Evidence = { type: 0, text: 0, location: 0 };
  for (const matcher of signature.matchers) {
    for (const field of matcher.fields) {
      const kind = KIND_OF[field];
      if (matcher.weight > evidence[kind] && texts[field].some((t) => matcher.pattern.test(t))) {
        evidence[kind] = matcher.weight;
      }
    }
  }
  return evidence;
}

/** `<label> <value>` from the first extractor that matches, or null. */
function subjectOf(signature: FailureSignature, texts: Texts): string | null {
  for (const extractor of signature.subject.extractors) {
    for (const field of extractor.fields) {
      for (const text of texts[field]) {
        const groups = extractor.pattern.exec(text)?.groups;
        if (groups === undefined) continue;
        const value = clip(
          extractor.template.replace(/\{(\w+)\}/g, (_, name: string) => groups[name]?.trim() ?? ''),
          100,
        );
        if (value.replace(/['"]/g, '').trim() === '') continue;
        return `${extractor.label ?? signature.subject.label} ${value}`;
      }
    }
  }
  return null;
}

/**
 * Type and text agreeing is strong evidence; either alone is partial; frames or culprit alone
 * are weak. Within a band, a higher score, an extracted subject and corroborating frames
 * raise the value. Rounded to two decimals so equal contexts give equal numbers.
 */
function confidenceOf(evidence: Evidence, score: number, hasSubject: boolean): number {
  const band =
    evidence.type > 0 && evidence.text > 0
      ? BANDS.strong
      : evidence.type > 0 || evidence.text > 0
        ? BANDS.partial
        : BANDS.location;
  const corroborated = band !== BANDS.location && evidence.location > 0;
  const fraction = 0.7 * Math.min(1, score) + (hasSubject ? 0.2 : 0) + (corroborated ? 0.1 : 0);
  const [low, high] = band;
  return Math.round((low + (high - low) * Math.min(1, fraction)) * 100) / 100;
}

function placeholders(context: ErrorContext, subject: string): Record<string, string> {
  return {
    subject,
    location: locationOf(context).text,
    culprit: context.culprit.trim() || 'the failing code',
    project: context.project,
    exception: exceptionText(context),
  };
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The signature's impact, raised for fatal events and qualified by how often it happened. */
function impactOf(context: ErrorContext, impact: string): string {
  const fatal =
    context.level === 'fatal'
      ? 'Fatal: this crashed the process or worker, not just one request, so everything it was serving failed with it. '
      : '';
  const since = context.first_seen ? ` since ${context.first_seen}` : '';
  const spread =
    context.count >= WIDESPREAD_COUNT
      ? `Widespread: ${context.count} events${since}, so it affects many requests or jobs, not an edge case.`
      : context.count >= RECURRING_COUNT
        ? `Recurring: ${context.count} events${since}.`
        : context.count > 1
          ? `Seen ${context.count} times${since}.`
          : `First occurrence${since}; not yet known to repeat.`;
  return `${fatal}${impact} ${spread}`;
}

/** No signature matched: say honestly what the event shows, with a low confidence. */
function genericAnalysis(context: ErrorContext): ErrorAnalysis {
  const location = locationOf(context);
  const exception = exceptionText(context);
  const hasException = Boolean(context.exception?.type || context.exception?.value);
  const failingLine = failingLineOf(context);
  const culprit = context.culprit.trim();
  const frame = topInAppFrame(context);
  const whereCulprit = culprit && frame !== null ? ` (culprit ${culprit})` : '';
  const errorName = context.exception?.type ?? 'error';
  return {
    root_cause:
      `No known failure signature matched, so this is only what the event shows: ${exception} was raised at ${location.text}${whereCulprit} in ${context.project}.` +
      (failingLine === null ? '' : ` Failing line: \`${failingLine}\`.`),
    impact: impactOf(
      context,
      `Requests or jobs in ${context.project} that reach ${location.text} fail with this error.`,
    ),
    fix_suggestion: `Start at ${location.text}: reproduce with the input that reached it, read the ${errorName} message and the local values there, and correct the assumption that does not hold.`,
    prevention:
      'Once the cause is known, add a regression test for this input, and attach identifiers and inputs to the error so the next occurrence can be diagnosed without reproducing it.',
    // spec-independent choice: a guess from location alone must rank below any signature match.
    confidence: hasException && location.known ? 0.25 : hasException || location.known ? 0.2 : 0.1,
    analyzed_by: RULES_PROVIDER,
  };
}
