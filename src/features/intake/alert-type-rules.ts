import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * The configurable match rules of alert-type resolution (spec, Alert payload: "first from the
 * match rules"). File shape (YAML or JSON, chosen by extension):
 *
 *   rules:
 *     - id: payments-latency
 *       type: latency
 *       match: { alert_name: '^Payments.*Slow$', labels: { team: payments }, rule_id: '42' }
 *
 * All conditions given in `match` must hold; the first matching rule wins. Regular
 * expressions are compiled once here, so matching an alert never compiles anything.
 */
export interface LabelMatcher {
  readonly name: string;
  /** A string is compared exactly; a `/.../flags` value in the file becomes a RegExp. */
  readonly value: string | RegExp;
}

export interface AlertTypeRule {
  readonly id: string;
  readonly type: string;
  readonly match: {
    /** Case-insensitive, anchored only as the user wrote it. */
    readonly alertName?: RegExp;
    readonly labels: readonly LabelMatcher[];
    readonly ruleId?: string;
  };
}

const RULE_KEYS = ['id', 'type', 'match'];
const MATCH_KEYS = ['alert_name', 'labels', 'rule_id'];
// Snake case like the built-in set; a colon would also blur the `ns:workload:type` fingerprint.
const TYPE_PATTERN = /^[a-z][a-z0-9_]*$/;
// `g` and `y` make RegExp.test stateful, so they are refused.
const LABEL_REGEX = /^\/(.+)\/([imsu]*)$/s;

export function loadAlertTypeRules(file: string | undefined): AlertTypeRule[] {
  if (file === undefined || file.trim() === '') return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`alert type rules file ${file}: cannot be read: ${messageOf(error)}`);
  }
  return compileAlertTypeRules(parseRulesText(text, file), file);
}

function parseRulesText(text: string, file: string): unknown {
  const extension = extname(file).toLowerCase();
  try {
    if (extension === '.json') return JSON.parse(text);
    if (extension === '.yaml' || extension === '.yml') return parseYaml(text);
  } catch (error) {
    const format = extension === '.json' ? 'JSON' : 'YAML';
    throw new Error(`alert type rules file ${file}: not valid ${format}: ${messageOf(error)}`);
  }
  throw new Error(
    `alert type rules file ${file}: unsupported extension "${extension}" (use .yaml, .yml or .json)`,
  );
}

/** Validates a parsed rules document; `origin` names the file in every error message. */
export function compileAlertTypeRules(document: unknown, origin: string): AlertTypeRule[] {
  const fail = (problem: string): never => {
    throw new Error(`alert type rules file ${origin}: ${problem}`);
  };
  if (!isRecord(document)) return fail('must be an object with a "rules" list');
  const unknownTop = Object.keys(document).filter((key) => key !== 'rules');
  if (unknownTop.length > 0) fail(`unknown key ${quoteList(unknownTop)} (only "rules" is allowed)`);
  const { rules } = document;
  if (!Array.isArray(rules)) return fail('"rules" must be a list');

  const seen = new Set<string>();
  return rules.map((raw, index) => {
    const rule = compileRule(raw, (problem) => fail(`rules[${index}]${idNote(raw)}: ${problem}`));
    if (seen.has(rule.id)) fail(`rules[${index}]: duplicate id "${rule.id}"`);
    seen.add(rule.id);
    return rule;
  });
}

function compileRule(raw: unknown, fail: (problem: string) => never): AlertTypeRule {
  if (!isRecord(raw)) return fail('must be an object with id, type and match');
  rejectUnknownKeys(raw, RULE_KEYS, fail);
  const id = requireText(raw.id, '"id"', fail);
  const type = requireText(raw.type, '"type"', fail);
  if (!TYPE_PATTERN.test(type)) fail(`"type" must be snake_case (a-z, 0-9, _), got "${type}"`);

  const match = raw.match;
  if (!isRecord(match)) return fail('"match" must be an object');
  rejectUnknownKeys(match, MATCH_KEYS, fail, 'match.');
  if (MATCH_KEYS.every((key) => match[key] === undefined)) {
    // An empty match would catch every alert and hide the static table.
    fail('"match" needs at least one of alert_name, labels, rule_id');
  }

  let alertName: RegExp | undefined;
  if (match.alert_name !== undefined) {
    const source = requireText(match.alert_name, '"match.alert_name"', fail);
    alertName = compileRegex(source, 'i', '"match.alert_name"', fail);
  }
  const ruleId =
    match.rule_id === undefined ? undefined : requireText(match.rule_id, '"match.rule_id"', fail);
  return { id, type, match: { alertName, labels: compileLabels(match.labels, fail), ruleId } };
}

function compileLabels(raw: unknown, fail: (problem: string) => never): LabelMatcher[] {
  if (raw === undefined) return [];
  if (!isRecord(raw)) return fail('"match.labels" must be an object of label name to value');
  return Object.entries(raw).map(([name, value]) => {
    const where = `"match.labels.${name}"`;
    const text = requireText(value, where, fail);
    const regex = LABEL_REGEX.exec(text);
    if (regex === null) return { name, value: text };
    return { name, value: compileRegex(regex[1] ?? '', regex[2] ?? '', where, fail) };
  });
}

function compileRegex(
  source: string,
  flags: string,
  where: string,
  fail: (problem: string) => never,
): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (error) {
    return fail(`${where} is not a valid regular expression: ${messageOf(error)}`);
  }
}

/** Numbers are accepted because YAML reads `rule_id: 42` or `code: 500` as numbers. */
function requireText(value: unknown, what: string, fail: (problem: string) => never): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') {
    return fail(value === undefined ? `${what} is missing` : `${what} must be a string`);
  }
  if (value.trim() === '') return fail(`${what} must not be empty`);
  // Returned as written: label values compare exactly and regexes are anchored as written.
  return value;
}

function rejectUnknownKeys(
  record: Record<string, unknown>,
  allowed: readonly string[],
  fail: (problem: string) => never,
  prefix = '',
): void {
  const unknown = Object.keys(record).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    fail(
      `unknown key ${quoteList(unknown.map((key) => prefix + key))} (allowed: ${allowed.join(', ')})`,
    );
  }
}

function idNote(raw: unknown): string {
  return isRecord(raw) && typeof raw.id === 'string' ? ` (id "${raw.id}")` : '';
}

function quoteList(keys: readonly string[]): string {
  return keys.map((key) => `"${key}"`).join(', ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
