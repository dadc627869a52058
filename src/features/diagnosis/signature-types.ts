/**
 * The shape of one known failure signature for the rules analyzer. Kept apart from the
 * tables so the table files and the aggregate list import it without an import cycle.
 */

/**
 * Where a matcher looks. `type` is the exception type; `value`, `title` and `message` are the
 * error text; `culprit` and `frame` (each frame's filename, function and context line) say
 * where it happened. They weigh differently: see {@link SignatureMatcher.weight}.
 */
export type MatchField = 'type' | 'value' | 'title' | 'message' | 'culprit' | 'frame';

export interface SignatureMatcher {
  fields: readonly MatchField[];
  pattern: RegExp;
  /**
   * How strongly a hit points at this signature (0 to 1). Within each evidence kind (type,
   * text, location) only the strongest hit counts, so one message seen in both the value and
   * the title is not counted twice. A signature matches once its total reaches 0.25, so a
   * generic type (`TypeError`, weight below that) never matches on its own.
   */
  weight: number;
}

/**
 * Pulls the specific thing that failed (a key, a host, a table) out of the error text. The
 * first extractor that matches wins. `template` names the regex's named groups in braces;
 * `label` overrides the signature's subject label for this extractor.
 */
export interface SubjectExtractor {
  fields: readonly MatchField[];
  pattern: RegExp;
  template: string;
  label?: string;
}

/**
 * Texts are templates. Placeholders: `{subject}` (the label and the extracted value, or the
 * `unknown` phrase when nothing was extracted), `{location}` (the top in-app frame as
 * `file:line in function`), `{culprit}`, `{project}` and `{exception}` (type: value).
 */
export interface FailureSignature {
  id: string;
  name: string;
  matchers: readonly SignatureMatcher[];
  subject: { label: string; unknown: string; extractors: readonly SubjectExtractor[] };
  rootCause: string;
  impact: string;
  fix: string;
  prevention: string;
}

/** The error text fields; most message matchers read all three. */
export const TEXT: readonly MatchField[] = ['value', 'title', 'message'];
/** Where it happened. */
export const WHERE: readonly MatchField[] = ['culprit', 'frame'];
export const TYPE: readonly MatchField[] = ['type'];

/**
 * Host extractors shared by the network families, most specific first: urllib3's
 * `host='x', port=n`, libpq's `server at "x" … port n` and `host "x" … port n`, Apache
 * HttpClient's `Connect to x:n`, Node's `connect ECONNREFUSED x:n`, Go's `dial tcp x:n`,
 * then any URL. The text after libpq's quoted host is bounded and stops at a quote, and the
 * line break between its two spans is the only place they meet: one `[^\n]{0,60}\n?[^\n]{0,80}?`
 * tried 60 × 80 ways to split a line at every `on host "`.
 */
export const HOST_EXTRACTORS: readonly SubjectExtractor[] = [
  {
    fields: TEXT,
    pattern: /host='(?<host>[^']+)', port=(?<port>\d+)/,
    template: "'{host}:{port}'",
  },
  {
    fields: TEXT,
    pattern: /server at "(?<host>[^"]+)"[^,\n"]{0,60}, port (?<port>\d+)/,
    template: "'{host}:{port}'",
  },
  {
    fields: TEXT,
    pattern: /on host "(?<host>[^"]+)"(?:[^\n"]{0,60}\n)?[^\n"]{0,80}?port (?<port>\d+)/,
    template: "'{host}:{port}'",
  },
  { fields: TEXT, pattern: /Connect to (?<host>[\w.-]+:\d+)/, template: "'{host}'" },
  {
    fields: TEXT,
    pattern: /\b(?:connect|read|write) E[A-Z]+ (?<host>[\w.:[\]-]+:\d+)/,
    template: "'{host}'",
  },
  {
    fields: TEXT,
    pattern: /\bdial (?:tcp|udp)[46]? (?<host>[\w.:[\]-]+:\d+)/,
    template: "'{host}'",
  },
  { fields: TEXT, pattern: /\bhttps?:\/\/(?<host>[^/\s"':]+(?::\d+)?)/, template: "'{host}'" },
];
