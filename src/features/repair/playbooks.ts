import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { PlaybookStep } from '../../ports/executor.js';
import type { RiskLevel } from '../approvals/approval-domain.js';
import { alertTypeFamily } from './alert-type-families.js';

/** What a repair touches, shown to whoever approves it (CONTRACT, Auto-repair). */
export const DATA_IMPACTS = ['NONE', 'READ_ONLY', 'READ_WRITE', 'DESTRUCTIVE'] as const;
export type DataImpact = (typeof DATA_IMPACTS)[number];
export const RISK_LEVELS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];
/** The values a step may name; run-playbook.ts fills them and checks each is a safe name. */
export const PLACEHOLDERS = ['namespace', 'workload', 'target', 'context'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export interface Playbook {
  id: string;
  name: string;
  matches: {
    alert_types: string[];
    error_signatures: string[];
    /** Every label given must be equal on the subject; empty matches any subject. */
    labels: Record<string, string>;
  };
  /** Step args still hold placeholders here; run-playbook.ts fills them. */
  steps: PlaybookStep[];
  risk_level: RiskLevel;
  blast_radius: { affected_pods: number; estimated_downtime: string; data_impact: DataImpact };
}

/** What a playbook is matched against: an approval's alert type, error signature, labels. */
export interface RepairSubject {
  alert_type: string;
  error_signature?: string | null;
  labels?: Record<string, string>;
}

export interface PlaybookMatch {
  playbook: Playbook;
  similarity_score: number;
}

/**
 * Similarity scores, strongest first. The alert type is the service's own classification of
 * the problem, so naming it is the best evidence; an error signature is a diagnosis of one
 * error, close behind; a sibling type of the same family (alert-type-families.ts) only
 * suggests the playbook.
 */
export const EXACT_TYPE_SCORE = 1.0;
export const SIGNATURE_SCORE = 0.9;
export const FAMILY_SCORE = 0.6;

/**
 * The best-scoring playbook for a subject, or null. Ties go to the playbook listed first, so
 * the catalog's order is the tie-break and the answer never depends on anything else.
 */
export function matchPlaybook(
  playbooks: readonly Playbook[],
  subject: RepairSubject,
): PlaybookMatch | null {
  let best: PlaybookMatch | null = null;
  for (const playbook of playbooks) {
    const score = similarity(playbook, subject);
    if (score > 0 && (best === null || score > best.similarity_score)) {
      best = { playbook, similarity_score: score };
    }
  }
  return best;
}

function similarity(playbook: Playbook, subject: RepairSubject): number {
  const labels = subject.labels ?? {};
  const { matches } = playbook;
  if (Object.entries(matches.labels).some(([name, value]) => labels[name] !== value)) return 0;
  if (matches.alert_types.includes(subject.alert_type)) return EXACT_TYPE_SCORE;
  const signature = subject.error_signature;
  if (signature && matches.error_signatures.includes(signature)) return SIGNATURE_SCORE;
  const family = alertTypeFamily(subject.alert_type);
  if (family !== null && matches.alert_types.some((type) => alertTypeFamily(type) === family)) {
    return FAMILY_SCORE;
  }
  return 0;
}

/**
 * The committed catalog, found by walking up from this module: the same file serves
 * `src/features/repair` under tsx and vitest and `dist/src/features/repair` after a build.
 */
export function defaultPlaybooksFile(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    const candidate = join(dir, 'config', 'playbooks.yaml');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error('playbooks file config/playbooks.yaml not found above the service code');
}

/** Reads and validates a catalog; any problem throws one error naming the file and playbook. */
export function loadPlaybooks(file: string = defaultPlaybooksFile()): Playbook[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`playbooks file ${file}: cannot be read: ${messageOf(error)}`);
  }
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new Error(`playbooks file ${file}: not valid YAML: ${messageOf(error)}`);
  }
  return compilePlaybooks(document, file);
}

const ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
const TYPE_PATTERN = /^[a-z][a-z0-9_]*$/;
// `{name}` with an identifier inside; JSON in an arg (`{"spec":…}`) never looks like this.
const PLACEHOLDER_PATTERN = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

type Fail = (problem: string) => never;

/** Validates a parsed catalog document; `origin` names the file in every error message. */
export function compilePlaybooks(document: unknown, origin: string): Playbook[] {
  const fail: Fail = (problem) => {
    throw new Error(`playbooks file ${origin}: ${problem}`);
  };
  if (!isRecord(document) || !Array.isArray(document.playbooks)) {
    return fail('must be an object with a "playbooks" list');
  }
  const seen = new Set<string>();
  return document.playbooks.map((raw: unknown, index: number) => {
    const where = `playbooks[${index}]${isRecord(raw) && typeof raw.id === 'string' ? ` (id "${raw.id}")` : ''}`;
    const playbook = compilePlaybook(raw, (problem) => fail(`${where}: ${problem}`));
    if (seen.has(playbook.id)) fail(`${where}: duplicate id "${playbook.id}"`);
    seen.add(playbook.id);
    return playbook;
  });
}

function compilePlaybook(raw: unknown, fail: Fail): Playbook {
  if (!isRecord(raw)) return fail('must be an object');
  onlyKeys(raw, ['id', 'name', 'matches', 'steps', 'risk_level', 'blast_radius'], '', fail);
  const id = text(raw.id, 'id', fail);
  if (!ID_PATTERN.test(id)) fail(`"id" must be lower-case kebab-case, got "${id}"`);
  const matches = raw.matches;
  if (!isRecord(matches)) return fail('"matches" must be an object');
  onlyKeys(matches, ['alert_types', 'error_signatures', 'labels'], 'matches.', fail);
  const alertTypes = textList(matches.alert_types, 'matches.alert_types', fail);
  const signatures = textList(matches.error_signatures, 'matches.error_signatures', fail);
  // A playbook that matches nothing is dead weight, and likely a typo in a key.
  if (alertTypes.length + signatures.length === 0) {
    fail('"matches" needs at least one alert type or error signature');
  }
  for (const type of alertTypes) {
    if (!TYPE_PATTERN.test(type)) fail(`alert type "${type}" must be snake_case`);
  }
  for (const signature of signatures) {
    if (!ID_PATTERN.test(signature)) fail(`error signature "${signature}" must be kebab-case`);
  }
  const risk = raw.risk_level;
  if (!RISK_LEVELS.includes(risk as RiskLevel)) {
    fail(`"risk_level" must be one of ${RISK_LEVELS.join(', ')}, got ${JSON.stringify(risk)}`);
  }
  return {
    id,
    name: text(raw.name, 'name', fail),
    matches: {
      alert_types: alertTypes,
      error_signatures: signatures,
      labels: labelsOf(matches.labels, fail),
    },
    steps: stepsOf(raw.steps, fail),
    risk_level: risk as RiskLevel,
    blast_radius: blastRadiusOf(raw.blast_radius, fail),
  };
}

function stepsOf(raw: unknown, fail: Fail): PlaybookStep[] {
  if (!Array.isArray(raw) || raw.length === 0) return fail('"steps" must be a non-empty list');
  const seen = new Set<string>();
  return raw.map((step: unknown, index: number) => {
    const where = `steps[${index}]`;
    if (!isRecord(step)) return fail(`${where} must be an object`);
    onlyKeys(step, ['id', 'description', 'args'], `${where}.`, fail);
    const id = text(step.id, `${where}.id`, fail);
    if (seen.has(id)) fail(`${where}: duplicate step id "${id}"`);
    seen.add(id);
    const args = textList(step.args, `${where}.args`, fail);
    if (args.length === 0) fail(`"${where}.args" must not be empty`);
    for (const arg of args) {
      for (const [, name] of arg.matchAll(PLACEHOLDER_PATTERN)) {
        if (!PLACEHOLDERS.includes(name as Placeholder)) {
          fail(
            `${where} (id "${id}") uses unknown placeholder {${name}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')})`,
          );
        }
      }
    }
    return { id, description: text(step.description, `${where}.description`, fail), args };
  });
}

function blastRadiusOf(raw: unknown, fail: Fail): Playbook['blast_radius'] {
  if (!isRecord(raw)) return fail('"blast_radius" must be an object');
  onlyKeys(raw, ['affected_pods', 'estimated_downtime', 'data_impact'], 'blast_radius.', fail);
  const pods = raw.affected_pods;
  if (typeof pods !== 'number' || !Number.isInteger(pods) || pods < 0) {
    fail('"blast_radius.affected_pods" must be a whole number of pods');
  }
  const impact = raw.data_impact;
  if (!DATA_IMPACTS.includes(impact as DataImpact)) {
    fail(`"blast_radius.data_impact" must be one of ${DATA_IMPACTS.join(', ')}`);
  }
  return {
    affected_pods: pods as number,
    // YAML reads a bare `0` as a number; the spec's downtime is a string such as `0`.
    estimated_downtime: text(raw.estimated_downtime, 'blast_radius.estimated_downtime', fail),
    data_impact: impact as DataImpact,
  };
}

function labelsOf(raw: unknown, fail: Fail): Record<string, string> {
  if (raw === undefined) return {};
  if (!isRecord(raw)) return fail('"matches.labels" must be an object of label name to value');
  return Object.fromEntries(
    Object.entries(raw).map(([name, value]) => [name, text(value, `matches.labels.${name}`, fail)]),
  );
}

function textList(raw: unknown, what: string, fail: Fail): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return fail(`"${what}" must be a list`);
  return raw.map((item: unknown, index: number) => text(item, `${what}[${index}]`, fail));
}

function text(value: unknown, what: string, fail: Fail): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') {
    return fail(value === undefined ? `"${what}" is missing` : `"${what}" must be a string`);
  }
  if (value.trim() === '') return fail(`"${what}" must not be empty`);
  return value;
}

function onlyKeys(record: Record<string, unknown>, allowed: string[], prefix: string, fail: Fail) {
  const unknown = Object.keys(record).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    fail(
      `unknown key ${unknown.map((key) => `"${prefix}${key}"`).join(', ')} (allowed: ${allowed.join(', ')})`,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
