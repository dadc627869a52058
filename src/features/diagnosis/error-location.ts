import type { ErrorContext, StackFrame } from '../../ports/analyzer.js';

/**
 * Where an error happened, in words, for the rules analyzer. The tracker's `in_app` flag does
 * not survive into {@link StackFrame}, so library frames are recognised by path and package.
 */

/**
 * Dependency and runtime paths: Python site-packages, node_modules, Node internals, Go's
 * GOROOT/module cache. Node's own `internal/…` is matched only as `.js`: Go apps keep their
 * code in `internal/` too.
 */
const LIBRARY_FILE =
  /site-packages|dist-packages|node_modules|^node:|^internal\/.*\.m?js$|[/\\]lib[/\\]python\d|<frozen |[/\\]go[/\\](?:src|pkg[/\\]mod)[/\\]|^\/usr\/(?:local\/)?(?:lib|go)\//;
/** JVM, Go standard library and runtime packages. */
const LIBRARY_FUNCTION =
  /^(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|org\.springframework|org\.apache|org\.hibernate|io\.netty|com\.zaxxer|com\.fasterxml)\.|^(?:runtime|reflect|net\/http|database\/sql|encoding\/json|sync)\./;

export function isLibraryFrame(frame: StackFrame): boolean {
  return (
    (frame.filename !== null && LIBRARY_FILE.test(frame.filename)) ||
    (frame.function !== null && LIBRARY_FUNCTION.test(frame.function))
  );
}

/**
 * The frame nearest the error that belongs to the application. Frames arrive oldest first
 * (Sentry's order, kept by buildErrorContext), so the search runs from the end; when every
 * frame is library code the nearest one is still the best location available.
 */
export function topInAppFrame(context: ErrorContext): StackFrame | null {
  const frames = context.stacktrace;
  for (let index = frames.length - 1; index >= 0; index--) {
    const frame = frames[index];
    if (frame !== undefined && !isLibraryFrame(frame)) return frame;
  }
  return frames.at(-1) ?? null;
}

/** `file:line in function`, leaving out whatever the frame lacks; null when it has nothing. */
export function describeFrame(frame: StackFrame | null): string | null {
  if (frame === null) return null;
  const file =
    frame.filename === null
      ? null
      : `${frame.filename}${frame.lineno === null ? '' : `:${frame.lineno}`}`;
  if (file !== null && frame.function !== null) return `${file} in ${frame.function}`;
  return file ?? frame.function;
}

/** The location sentence fragment: the top in-app frame, else the culprit, else the project. */
export function locationOf(context: ErrorContext): { text: string; known: boolean } {
  const frame = describeFrame(topInAppFrame(context));
  if (frame !== null) return { text: frame, known: true };
  if (context.culprit.trim() !== '') return { text: context.culprit.trim(), known: true };
  return { text: `an unknown location in ${context.project}`, known: false };
}

/** The source line of the top in-app frame, trimmed, or null. */
export function failingLineOf(context: ErrorContext): string | null {
  const line = topInAppFrame(context)?.context_line?.trim();
  return line ? clip(line, 120) : null;
}

/** `Type: value` as the tracker shows it, else the title. */
export function exceptionText(context: ErrorContext): string {
  const parts = [context.exception?.type, context.exception?.value].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
  return clip(parts.length > 0 ? parts.join(': ') : context.title, 160);
}

/** One line, at most `max` characters: extracted text ends up in chat cards and comments. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
