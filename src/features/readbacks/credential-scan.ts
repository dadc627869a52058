/**
 * Finds anything that looks like a credential in an owner-supplied JSON body (spec, Readbacks:
 * POST, "no credential accepted"; docs/api.md, Readbacks: a private key, token, password or connection
 * string with a password is rejected and never stored or echoed). Pure. A finding names
 * where and what kind, never the value, so a caller can explain a rejection safely.
 */
export type CredentialKind =
  | 'private_key'
  | 'access_token'
  | 'password_field'
  | 'password_assignment'
  | 'connection_string_password';

export interface CredentialFinding {
  /** JSON path such as `refs[2].ref`; a key that itself looks like a secret shows as `<key>`. */
  path: string;
  kind: CredentialKind;
}

/**
 * Owner-supplied text can be 1 MiB of near-misses, so no pattern may rescan a run of text from
 * each of its characters (CONTRACT, Bad input: no super-linear backtracking). A `\b` before a
 * class that contains `-`, `.` or `+` restarts a scan at every such separator: `a.a.a.…`
 * cost the connection-string pattern quadratic time. Those patterns therefore start only where
 * a run of their characters starts, `(?:^|[^…])`; what remains either ends within a bounded
 * number of characters of its start or is a single forward scan.
 */
const TEXT_PATTERNS: ReadonlyArray<readonly [CredentialKind, RegExp]> = [
  ['private_key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/],
  [
    'access_token',
    // GitHub, GitLab, AWS access key id, Slack, OpenAI-style and chat bot tokens: each fails
    // within its fixed prefix or succeeds, so a start at every `\b` stays linear.
    /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|\d{8,10}:[A-Za-z0-9_-]{35})/,
  ],
  [
    'access_token',
    // JWT `header.payload.signature`: a run of token characters holding `eyJ` at its start or
    // after a `-` (where `\beyJ` started), then `.eyJ…`. `\beyJ` restarted at every `-` of
    // `eyJ-eyJ-…` and read the rest of the run again each time; the lookahead finds that `eyJ`
    // once and does not backtrack, and the run is read once from its start.
    /(?:^|[^A-Za-z0-9_-])(?=(?:[A-Za-z0-9_-]*?-)?eyJ)[A-Za-z0-9_-]{11,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  ],
  ['access_token', /\bBearer\s+[A-Za-z0-9._~+/-]{16,}/],
  [
    'connection_string_password',
    // scheme://user:password@host; `user@host` alone carries no secret. The scheme is the run of
    // scheme characters before `://` holding a letter (RFC 3986 starts it with one); its prefix
    // up to that letter has no letters, so the run is read once.
    /(?:^|[^a-z0-9+.-])[0-9+.-]*[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@/i,
  ],
  [
    'password_assignment',
    /\b(?:password|passwd|pwd|secret|token|api[_-]?key|client[_-]?secret)\s*[=:]\s*(?!\[redacted|\*{3}|<redacted)[^\s,;"'}]{3,}/i,
  ],
];

// A key naming a secret; `*_ref`, `*_id` and `*_hint` keys name a pointer, not the secret.
const SECRET_KEY =
  /^(?:.*[_-])?(?:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key|client[_-]?secret|credentials?)$/i;

/** Values that say "the secret is not here": markers left by redaction, or empty. */
function isPlaceholder(value: string): boolean {
  const text = value.trim();
  return (
    text === '' || /^(?:\[redacted[^\]]*\]|<redacted>|\*+|redacted|none|null|n\/a)$/i.test(text)
  );
}

export function findCredentials(value: unknown, path = ''): CredentialFinding[] {
  const findings: CredentialFinding[] = [];
  walk(value, path, findings);
  return findings;
}

function walk(value: unknown, path: string, findings: CredentialFinding[]): void {
  if (typeof value === 'string') {
    for (const [kind, pattern] of TEXT_PATTERNS) {
      if (pattern.test(value)) {
        findings.push({ path: path || '(body)', kind });
        return;
      }
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      walk(item, `${path}[${index}]`, findings);
    });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    const here = path ? `${path}.${safeKey(key)}` : safeKey(key);
    // A key can carry the secret too (`{"hunter2": true}` is unlikely, a token as key is not).
    if (TEXT_PATTERNS.some(([, pattern]) => pattern.test(key))) {
      findings.push({ path: path ? `${path}.<key>` : '<key>', kind: 'access_token' });
      continue;
    }
    if (SECRET_KEY.test(key) && typeof inner === 'string' && !isPlaceholder(inner)) {
      findings.push({ path: here, kind: 'password_field' });
      continue;
    }
    walk(inner, here, findings);
  }
}

/** Keys are echoed in paths, so an odd key is shortened rather than repeated in full. */
function safeKey(key: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : '<key>';
}
