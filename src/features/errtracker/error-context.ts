import type { ErrorContext, StackFrame } from '../../ports/analyzer.js';

/**
 * Reading the error-tracker webhook body (spec, Error-tracker payload). The route parses an
 * unparsable body as `{}` (spec, processing step 1), so every reader here accepts any JSON
 * value and never throws: a field of the wrong type counts as absent.
 *
 * Two real shapes arrive (Sentry's integration platform): an *issue* webhook carries
 * `data.issue`, an *issue-alert* (`event_alert`, action `triggered`) webhook carries
 * `data.event` with `issue_id`. Each field is read from `data.issue` first, then `data.event`.
 */

type Fields = Record<string, unknown>;

/** spec, Limits: "Stack frames kept: last 5". */
export const STACK_FRAMES_KEPT = 5;

/**
 * A missing level reads as `error`: Sentry stores events without a level as `error`, and
 * the spec's step 6 then analyzes them rather than silently dropping a real failure.
 */
export const DEFAULT_TRACKER_LEVEL = 'error';

/** Shown when neither the issue nor the event names the error; Sentry always sends one. */
export const UNTITLED_ERROR = 'Unknown error';

/** When no project slug can be found; `related_services` and anomaly keys need a name. */
export const UNKNOWN_PROJECT = 'unknown';

export function actionOf(payload: unknown): string {
  return text(fieldsOf(payload)?.action) ?? '';
}

/** `data.issue.id`, else `data.event.issue_id`; `''` when neither is present. */
export function issueIdOf(payload: unknown): string {
  const { issue, event } = sectionsOf(payload);
  return text(issue?.id) ?? text(event?.issue_id) ?? '';
}

export function shortIdOf(payload: unknown): string | null {
  const { issue, event } = sectionsOf(payload);
  return text(issue?.shortId) ?? text(event?.short_id) ?? null;
}

/** Lower-case; {@link DEFAULT_TRACKER_LEVEL} when absent. */
export function levelOf(payload: unknown): string {
  const { issue, event } = sectionsOf(payload);
  const level = text(issue?.level) ?? text(event?.level) ?? tagOf(payload, 'level');
  return level?.trim().toLowerCase() || DEFAULT_TRACKER_LEVEL;
}

/** The title exactly as sent (the canary rule compares it verbatim), or null. */
export function titleOf(payload: unknown): string | null {
  const { issue, event } = sectionsOf(payload);
  return text(issue?.title) ?? text(event?.title);
}

/** spec: "A tag is a `[key, value]` pair or an object with `key` and `value`." */
export function tagsOf(payload: unknown): Record<string, string> {
  const entries: [string, string][] = [];
  eachTag(payload, (key, value) => {
    entries.push([key, value]);
  });
  // fromEntries defines own properties, so a `__proto__` tag stays a tag.
  return Object.fromEntries(entries);
}

/** One tag's value as {@link tagsOf} would give it (the last pair with that key), or undefined. */
export function tagOf(payload: unknown, wanted: string): string | undefined {
  let found: string | undefined;
  eachTag(payload, (key, value) => {
    if (key === wanted) found = value;
  });
  return found;
}

function eachTag(payload: unknown, visit: (key: string, value: string) => void): void {
  const tags = sectionsOf(payload).event?.tags;
  const add = (key: unknown, value: unknown) => {
    const k = text(key);
    const v = scalarText(value);
    if (k !== null && v !== null) visit(k, v);
  };
  if (Array.isArray(tags)) {
    for (const tag of tags) {
      if (Array.isArray(tag)) add(tag[0], tag[1]);
      else add(fieldsOf(tag)?.key, fieldsOf(tag)?.value);
    }
  } else {
    // Raw SDK events carry tags as a plain map; cheap to accept.
    for (const [key, value] of Object.entries(fieldsOf(tags) ?? {})) add(key, value);
  }
}

/**
 * What every recorded stage of an issue says about it: the error context without its tags
 * and stack, which only the analysis needs (a repeat inside the dedup window never reads them).
 */
export type IssueSummary = Omit<ErrorContext, 'tags' | 'stacktrace'>;

export function describeIssue(payload: unknown): IssueSummary {
  const { issue, event } = sectionsOf(payload);
  const exception = exceptionOf(issue, event);
  const summary = exception === null ? null : exceptionSummary(exception);
  const title = titleOf(payload) ?? summary ?? UNTITLED_ERROR;
  return {
    issue_id: issueIdOf(payload),
    source_url: linkOf(issue) ?? linkOf(event),
    title,
    culprit: text(issue?.culprit) ?? text(event?.culprit) ?? '',
    level: levelOf(payload),
    first_seen: text(issue?.firstSeen) ?? text(issue?.first_seen) ?? null,
    count: countOf(issue?.count),
    project: projectOf(issue, event),
    message: messageOf(event) ?? summary ?? title,
    platform: text(issue?.platform) ?? text(event?.platform) ?? '',
    exception,
  };
}

export function buildErrorContext(
  payload: unknown,
  summary = describeIssue(payload),
): ErrorContext {
  const { exception, ...described } = summary;
  return {
    ...described,
    tags: tagsOf(payload),
    stacktrace: framesOf(sectionsOf(payload).event)
      .slice(-STACK_FRAMES_KEPT)
      .map((frame) => reduceFrame(frame)),
    exception,
  };
}

/** What an event or approval is about: the culprit, else the project (spec, Events). */
export function targetResourceOf(ctx: IssueSummary): string {
  return ctx.culprit || ctx.project;
}

function sectionsOf(payload: unknown): { issue: Fields | null; event: Fields | null } {
  const data = fieldsOf(fieldsOf(payload)?.data);
  // Sentry's `error` webhook resource carries the same event object under `data.error`.
  return { issue: fieldsOf(data?.issue), event: fieldsOf(data?.event) ?? fieldsOf(data?.error) };
}

/** spec: "a link under permalink, web_url or url (that fallback order)". */
function linkOf(section: Fields | null): string | null {
  return text(section?.permalink) ?? text(section?.web_url) ?? text(section?.url);
}

/**
 * Sentry sends the issue count as a string (`"count": "3"`). Absent or unreadable counts
 * read as 1: a tracker issue exists only once an event has been seen.
 */
function countOf(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    const count = Number.parseInt(value, 10);
    if (Number.isSafeInteger(count)) return count;
  }
  return 1;
}

/**
 * The issue's `project.slug`; an issue-alert event has only a numeric project id, so its
 * slug comes from `project_slug` or from its API url (`/projects/<org>/<slug>/events/…`).
 */
function projectOf(issue: Fields | null, event: Fields | null): string {
  const fromUrl = /\/projects\/[^/]+\/([^/]+)\//.exec(text(event?.url) ?? '')?.[1];
  const candidates = [
    fieldsOf(issue?.project)?.slug,
    issue?.project_slug,
    event?.project_slug,
    fieldsOf(event?.project)?.slug,
    event?.project,
    fromUrl,
  ];
  for (const candidate of candidates) {
    // A bare number (or digit string) is Sentry's project id, not a slug.
    const slug = typeof candidate === 'string' ? candidate.trim() : '';
    if (slug !== '' && !/^\d+$/.test(slug)) return slug;
  }
  return UNKNOWN_PROJECT;
}

/** The first exception value (spec: `exception.values[0]`), else the issue's metadata. */
function exceptionOf(issue: Fields | null, event: Fields | null): ErrorContext['exception'] {
  for (const source of [
    firstExceptionValue(event),
    fieldsOf(event?.metadata),
    fieldsOf(issue?.metadata),
  ]) {
    const type = text(source?.type);
    const value = text(source?.value);
    if (type !== null || value !== null) return { type, value };
  }
  return null;
}

function firstExceptionValue(event: Fields | null): Fields | null {
  const exception = event?.exception;
  // Old SDKs sent `exception` as the bare list instead of `{ values: [...] }`.
  const values = Array.isArray(exception) ? exception : fieldsOf(exception)?.values;
  return Array.isArray(values) ? fieldsOf(values[0]) : null;
}

function exceptionSummary(exception: NonNullable<ErrorContext['exception']>): string | null {
  const parts = [exception.type, exception.value].filter((part) => part !== null);
  return parts.length === 0 ? null : parts.join(': ');
}

/** event.message, else event.logentry.formatted; Sentry often sends `"message": ""`. */
function messageOf(event: Fields | null): string | null {
  const message = event?.message;
  const logentry = fieldsOf(event?.logentry);
  return (
    text(message) ??
    text(fieldsOf(message)?.formatted) ??
    text(logentry?.formatted) ??
    text(logentry?.message)
  );
}

/** Frames as Sentry sends them, oldest first, so the last ones are nearest the error. */
function framesOf(event: Fields | null): Fields[] {
  const stacktraces = [
    fieldsOf(firstExceptionValue(event)?.stacktrace),
    fieldsOf(event?.stacktrace),
  ];
  for (const stacktrace of stacktraces) {
    const frames = stacktrace?.frames;
    if (Array.isArray(frames) && frames.length > 0) {
      return frames.map((frame) => fieldsOf(frame)).filter((frame) => frame !== null);
    }
  }
  return [];
}

/** spec: "each reduced to filename, function, lineno and context_line". */
function reduceFrame(frame: Fields): StackFrame {
  return {
    filename: text(frame.filename) ?? text(frame.abs_path),
    function: text(frame.function),
    lineno: lineOf(frame.lineno),
    context_line: typeof frame.context_line === 'string' ? frame.context_line : null,
  };
}

function lineOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number.parseInt(value, 10);
  return null;
}

function fieldsOf(value: unknown): Fields | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : null;
}

/** A non-blank string as sent, or a finite number as its decimal text (ids arrive as both). */
function text(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value;
  return text(value);
}
