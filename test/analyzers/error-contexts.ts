import type { ErrorContext, StackFrame } from '../../src/ports/analyzer.js';

/** Builds tracker error contexts for the analyzer tests; frames are given oldest first. */

export function frame(
  filename: string | null,
  fn: string | null,
  lineno: number | null = null,
  contextLine: string | null = null,
): StackFrame {
  return { filename, function: fn, lineno, context_line: contextLine };
}

export interface ContextInput {
  type?: string | null;
  value?: string | null;
  title?: string;
  culprit?: string;
  level?: string;
  count?: number;
  project?: string;
  platform?: string;
  frames?: StackFrame[];
  message?: string;
}

export function errorContext(input: ContextInput = {}): ErrorContext {
  const type = input.type ?? null;
  const value = input.value ?? null;
  const summary = [type, value].filter((part) => part !== null).join(': ');
  const title = input.title ?? (summary || 'Unknown error');
  return {
    issue_id: '4711',
    source_url: 'https://tracker.example/issues/4711/',
    title,
    culprit: input.culprit ?? '',
    level: input.level ?? 'error',
    first_seen: '2024-05-01T08:00:00Z',
    count: input.count ?? 3,
    project: input.project ?? 'checkout',
    message: input.message ?? title,
    platform: input.platform ?? 'python',
    tags: { environment: 'prod' },
    stacktrace: input.frames ?? [],
    exception: type === null && value === null ? null : { type, value },
  };
}
