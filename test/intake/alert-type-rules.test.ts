import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compileAlertTypeRules,
  loadAlertTypeRules,
} from '../../src/features/intake/alert-type-rules.js';
import { resolveAlertType } from '../../src/features/intake/alert-types.js';

const dir = mkdtempSync(join(tmpdir(), 'alert-type-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeRules(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const YAML_RULES = `
rules:
  - id: slo-burn
    type: error_rate
    match:
      alert_name: 'SLOBurn$'
  - id: payments
    type: service_down
    match:
      labels:
        team: payments
        job: /^blackbox(-.*)?$/
      rule_id: 42
`;

describe('loadAlertTypeRules', () => {
  it('returns no rules without a file', () => {
    expect(loadAlertTypeRules(undefined)).toEqual([]);
  });

  it.each([
    ['rules.yaml', YAML_RULES],
    ['rules.yml', YAML_RULES],
    [
      'rules.json',
      JSON.stringify({
        rules: [
          { id: 'slo-burn', type: 'error_rate', match: { alert_name: 'SLOBurn$' } },
          {
            id: 'payments',
            type: 'service_down',
            match: { labels: { team: 'payments', job: '/^blackbox(-.*)?$/' }, rule_id: '42' },
          },
        ],
      }),
    ],
  ])('loads %s', (name, text) => {
    const rules = loadAlertTypeRules(writeRules(name, text));
    expect(rules.map((rule) => rule.id)).toEqual(['slo-burn', 'payments']);
    expect(rules[1]?.match.ruleId).toBe('42');
    const alert = {
      alert_name: 'X',
      rule_id: '42',
      labels: { team: 'payments', job: 'blackbox-http' },
    };
    expect(resolveAlertType(alert, rules).source).toBe('rule:payments');
    expect(resolveAlertType({ alert_name: 'CheckoutSloBurn' }, rules).source).toBe('rule:slo-burn');
  });

  it('loads the shipped example', () => {
    const rules = loadAlertTypeRules(
      join(import.meta.dirname, '../../config/alert-type-rules.example.yaml'),
    );
    expect(rules.length).toBeGreaterThanOrEqual(3);
    const lag = { alert_name: 'KafkaTopicConsumerLag', labels: { cluster: 'kafka-prod-2' } };
    expect(resolveAlertType(lag, rules)).toEqual({
      alertType: 'consumer_lag',
      source: 'rule:kafka-consumer-lag',
    });
  });

  it.each([
    ['rules.txt', 'rules: []', /unsupported extension ".txt"/],
    ['bad.yaml', 'rules: [\n  - id: a\n  type', /not valid YAML/],
    ['bad.json', '{"rules": [', /not valid JSON/],
    ['empty.yaml', '', /must be an object with a "rules" list/],
  ])('rejects %s', (name, text, message) => {
    const file = writeRules(name, text);
    expect(() => loadAlertTypeRules(file)).toThrow(message);
    expect(() => loadAlertTypeRules(file)).toThrow(file);
  });

  it('names a missing file', () => {
    const file = join(dir, 'missing.yaml');
    expect(() => loadAlertTypeRules(file)).toThrow(`alert type rules file ${file}: cannot be read`);
  });
});

describe('compileAlertTypeRules validation', () => {
  const ok = { id: 'ok', type: 'latency', match: { alert_name: 'x' } };
  it.each<[string, unknown, string]>([
    ['not an object', [], 'must be an object with a "rules" list'],
    ['unknown top-level key', { rules: [], extra: 1 }, 'unknown key "extra"'],
    ['rules not a list', { rules: {} }, '"rules" must be a list'],
    ['rule not an object', { rules: [ok, 'x'] }, 'rules[1]: must be an object'],
    [
      'missing id',
      { rules: [ok, { type: 'latency', match: { alert_name: 'x' } }] },
      'rules[1]: "id" is missing',
    ],
    [
      'missing type',
      { rules: [{ id: 'a', match: { alert_name: 'x' } }] },
      'rules[0] (id "a"): "type" is missing',
    ],
    [
      'empty type',
      { rules: [{ id: 'a', type: ' ', match: { alert_name: 'x' } }] },
      'rules[0] (id "a"): "type" must not be empty',
    ],
    [
      'type not snake_case',
      { rules: [{ id: 'a', type: 'Crash-Loop', match: { alert_name: 'x' } }] },
      'rules[0] (id "a"): "type" must be snake_case',
    ],
    [
      'missing match',
      { rules: [{ id: 'a', type: 'latency' }] },
      'rules[0] (id "a"): "match" must be an object',
    ],
    [
      'empty match',
      { rules: [{ id: 'a', type: 'latency', match: {} }] },
      'rules[0] (id "a"): "match" needs at least one of alert_name, labels, rule_id',
    ],
    [
      'unknown rule key',
      { rules: [ok, { ...ok, id: 'b' }, { ...ok, id: 'c', priority: 1 }] },
      'rules[2] (id "c"): unknown key "priority" (allowed: id, type, match)',
    ],
    [
      'unknown match key',
      { rules: [{ ...ok, match: { name: 'x' } }] },
      'rules[0] (id "ok"): unknown key "match.name"',
    ],
    [
      'invalid name regex',
      { rules: [ok, { ...ok, id: 'b', match: { alert_name: '(' } }] },
      'rules[1] (id "b"): "match.alert_name" is not a valid regular expression',
    ],
    [
      'invalid label regex',
      { rules: [{ ...ok, match: { labels: { job: '/[/' } } }] },
      'rules[0] (id "ok"): "match.labels.job" is not a valid regular expression',
    ],
    [
      'labels not an object',
      { rules: [{ ...ok, match: { labels: ['a'] } }] },
      'rules[0] (id "ok"): "match.labels" must be an object',
    ],
    [
      'label value not a string',
      { rules: [{ ...ok, match: { labels: { a: { b: 1 } } } }] },
      'rules[0] (id "ok"): "match.labels.a" must be a string',
    ],
    ['duplicate id', { rules: [ok, ok] }, 'rules[1]: duplicate id "ok"'],
  ])('%s', (_case, document, message) => {
    // every message names the file, and the rule index when one rule is at fault
    expect(() => compileAlertTypeRules(document, 'rules.yaml')).toThrow(
      new RegExp(`^alert type rules file rules\\.yaml: .*${escapeRegExp(message)}`),
    );
  });

  it.each<[string, string, string, boolean]>([
    ['exact value', 'prod', 'prod', true],
    ['exact value, other case', 'prod', 'PROD', false],
    ['regex, unanchored as written', '/prod/', 'preprod-1', true],
    ['regex with i flag', '/^prod$/i', 'PROD', true],
    ['a path is not a regex', '/api/v1', '/api/v1', true],
  ])('label %s', (_case, written, actual, matches) => {
    const [rule] = compileAlertTypeRules(
      { rules: [{ id: 'r', type: 'latency', match: { labels: { env: written } } }] },
      'f',
    );
    expect(
      resolveAlertType({ labels: { env: actual } }, rule ? [rule] : []).source === 'rule:r',
    ).toBe(matches);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
