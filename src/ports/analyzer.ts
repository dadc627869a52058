/** spec, Error-tracker payload: "Error context built from it". */
export interface StackFrame {
  filename: string | null;
  function: string | null;
  lineno: number | null;
  context_line: string | null;
}

export interface ErrorContext {
  issue_id: string;
  source_url: string | null;
  title: string;
  culprit: string;
  level: string;
  first_seen: string | null;
  count: number;
  /** project slug */
  project: string;
  message: string;
  platform: string;
  tags: Record<string, string>;
  /** The last 5 frames (spec, Limits: "Stack frames kept: last 5"). */
  stacktrace: StackFrame[];
  /** Not in the spec's list: the first exception's type and value, which diagnosis needs. */
  exception: { type: string | null; value: string | null } | null;
}

/** spec, Error analysis result. */
export interface ErrorAnalysis {
  root_cause: string;
  impact: string;
  fix_suggestion: string;
  prevention: string;
  /** 0 to 1 */
  confidence: number;
  /** names the provider, e.g. `rules` or `openai:<model>` */
  analyzed_by: string;
  /** Not in the spec: the known failure signature diagnosed, which repair playbooks match. */
  error_signature?: string;
}

export interface Analyzer {
  readonly provider: string;
  analyze(context: ErrorContext, signal: AbortSignal): Promise<ErrorAnalysis>;
}

/** spec, Limits: the analyzer rows. */
export const ANALYZER_LIMITS = {
  timeoutMs: 60_000,
  concurrency: 3,
  failureThreshold: 5,
  openMs: 60_000,
} as const;
