import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAILURE_SIGNATURES } from '../../src/features/diagnosis/failure-signatures.js';
import { ALERT_TYPES } from '../../src/features/incidents/alert-type-table.js';
import {
  compilePlaybooks,
  EXACT_TYPE_SCORE,
  FAMILY_SCORE,
  loadPlaybooks,
  matchPlaybook,
  type Playbook,
  SIGNATURE_SCORE,
} from '../../src/features/repair/playbooks.js';

const dir = mkdtempSync(join(tmpdir(), 'playbooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const catalog = loadPlaybooks();

describe('the committed catalog', () => {
  it('loads with 8 to 12 playbooks', () => {
    expect(catalog.length).toBeGreaterThanOrEqual(8);
    expect(catalog.length).toBeLessThanOrEqual(12);
  });

  it('names only built-in alert types and known error signatures', () => {
    const signatures = new Set(FAILURE_SIGNATURES.map((signature) => signature.id));
    for (const playbook of catalog) {
      for (const type of playbook.matches.alert_types) {
        expect(ALERT_TYPES, playbook.id).toContain(type);
      }
      for (const signature of playbook.matches.error_signatures) {
        expect(signatures.has(signature), `${playbook.id}: ${signature}`).toBe(true);
      }
    }
  });

  it('has a high-risk node drain and a critical break-glass playbook', () => {
    const byId = new Map(catalog.map((playbook) => [playbook.id, playbook]));
    expect(byId.get('cordon-and-drain-node')?.risk_level).toBe('high');
    expect(catalog.some((playbook) => playbook.risk_level === 'critical')).toBe(true);
  });
});

const BASE = `
playbooks:
  - id: restart
    name: Restart
    matches: { alert_types: [crash_loop] }
    steps:
      - { id: restart, description: Restart, args: [rollout, restart, 'deployment/{workload}'] }
    risk_level: low
    blast_radius: { affected_pods: 1, estimated_downtime: '0', data_impact: NONE }
`;

function writeCatalog(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('loadPlaybooks errors', () => {
  it('loads a minimal valid file', () => {
    expect(loadPlaybooks(writeCatalog('ok.yaml', BASE)).map((p) => p.id)).toEqual(['restart']);
  });

  it.each([
    ['a missing file', null, /cannot be read/],
    ['invalid YAML', 'playbooks: [', /not valid YAML/],
    ['no playbooks list', 'other: 1', /must be an object with a "playbooks" list/],
    [
      'an unknown placeholder',
      BASE.replace('{workload}', '{workloud}'),
      /playbooks\[0\] \(id "restart"\): steps\[0\] \(id "restart"\) uses unknown placeholder \{workloud\}/,
    ],
    [
      'a bad risk level',
      BASE.replace('risk_level: low', 'risk_level: severe'),
      /"risk_level" must be one of low, medium, high, critical/,
    ],
    [
      'nothing to match',
      BASE.replace('alert_types: [crash_loop]', 'alert_types: []'),
      /needs at least one alert type or error signature/,
    ],
    [
      'an unknown key',
      BASE.replace('    risk_level: low', '    risk: low\n    risk_level: low'),
      /unknown key "risk"/,
    ],
    [
      'no steps',
      BASE.replace(/ {4}steps:\n.*\n/, '    steps: []\n'),
      /"steps" must be a non-empty list/,
    ],
    ['a missing name', BASE.replace('    name: Restart\n', ''), /"name" is missing/],
    [
      'a bad data impact',
      BASE.replace('data_impact: NONE', 'data_impact: SOME'),
      /data_impact" must be one of/,
    ],
    [
      'negative pods',
      BASE.replace('affected_pods: 1', 'affected_pods: -1'),
      /affected_pods" must be a whole number/,
    ],
    [
      'an upper-case id',
      BASE.replace('id: restart\n    name', 'id: Restart\n    name'),
      /"id" must be lower-case kebab-case/,
    ],
    [
      'a duplicate id',
      BASE + BASE.replace('playbooks:\n', ''),
      /playbooks\[1\] \(id "restart"\): duplicate id "restart"/,
    ],
  ])('names the problem: %s', (_, text, message) => {
    const file = text === null ? join(dir, 'absent.yaml') : writeCatalog('bad.yaml', text);
    expect(() => loadPlaybooks(file)).toThrow(message);
    expect(() => loadPlaybooks(file)).toThrow(file);
  });
});

function playbook(
  id: string,
  matches: Partial<Playbook['matches']>,
  risk: Playbook['risk_level'] = 'low',
): Playbook {
  return compilePlaybooks(
    {
      playbooks: [
        {
          id,
          name: id,
          matches,
          steps: [{ id: 's', description: 'd', args: ['get', 'pods'] }],
          risk_level: risk,
          blast_radius: { affected_pods: 1, estimated_downtime: '0', data_impact: 'NONE' },
        },
      ],
    },
    'test',
  )[0]!;
}

describe('matchPlaybook', () => {
  const table = [
    playbook('restart', { alert_types: ['crash_loop'] }),
    playbook('pool', { error_signatures: ['pool-exhausted'] }),
    playbook('memory', { alert_types: ['oom_killed'], error_signatures: ['out-of-memory'] }),
    playbook('restart-again', { alert_types: ['crash_loop'] }),
    playbook('payments-only', { alert_types: ['latency'], labels: { team: 'payments' } }),
    playbook('scale', { alert_types: ['latency'] }),
  ];

  it.each([
    ['exact alert type', { alert_type: 'crash_loop' }, 'restart', EXACT_TYPE_SCORE],
    ['first listed wins a tie', { alert_type: 'crash_loop' }, 'restart', 1.0],
    [
      'error signature',
      { alert_type: 'errtracker_error', error_signature: 'pool-exhausted' },
      'pool',
      SIGNATURE_SCORE,
    ],
    [
      'exact type beats a signature',
      { alert_type: 'oom_killed', error_signature: 'pool-exhausted' },
      'memory',
      1.0,
    ],
    [
      'signature beats a family',
      { alert_type: 'high_memory', error_signature: 'pool-exhausted' },
      'pool',
      0.9,
    ],
    [
      'family: high_memory is a sibling of oom_killed',
      { alert_type: 'high_memory' },
      'memory',
      FAMILY_SCORE,
    ],
    [
      'family: service_down is a sibling of crash_loop',
      { alert_type: 'service_down' },
      'restart',
      0.6,
    ],
    [
      'labels must all be equal',
      { alert_type: 'latency', labels: { team: 'payments' } },
      'payments-only',
      1.0,
    ],
    [
      'other labels skip that playbook',
      { alert_type: 'latency', labels: { team: 'search' } },
      'scale',
      1.0,
    ],
    ['no family for custom types', { alert_type: 'custom' }, null, 0],
    ['no family for errtracker types', { alert_type: 'errtracker_fatal' }, null, 0],
    ['no match without signature', { alert_type: 'heartbeat', error_signature: null }, null, 0],
  ])('%s', (_, subject, id, score) => {
    const match = matchPlaybook(table, subject);
    expect(match?.playbook.id ?? null).toBe(id);
    expect(match?.similarity_score ?? 0).toBe(score);
  });

  it('is deterministic over the committed catalog', () => {
    for (const type of ALERT_TYPES) {
      const first = matchPlaybook(catalog, { alert_type: type });
      expect(matchPlaybook(catalog, { alert_type: type })).toEqual(first);
    }
    expect(matchPlaybook(catalog, { alert_type: 'crash_loop' })?.playbook.id).toBe(
      'restart-crash-looping-deployment',
    );
    expect(
      matchPlaybook(catalog, { alert_type: 'errtracker_error', error_signature: 'pool-exhausted' })
        ?.playbook.id,
    ).toBe('recycle-connection-pool');
  });
});
