import { describe, expect, it } from 'vitest';
import {
  applyPublicTerms,
  compilePublicTerms,
  loadPublicTerms,
} from '../../src/features/readbacks/public-terms.js';

describe('public terms', () => {
  const glossary = compilePublicTerms(
    { terms: { winhost: 'windows-host', vmx: 'vm-config', agentcore: 'agent-runtime' } },
    'test',
  );

  it.each([
    ['winhost-vmx-source-repair-package', 'windows-host-vm-config-source-repair-package'],
    ['AgentCore scene', 'agent-runtime scene'],
    ['winhosts2', 'winhosts2'],
    ['agentcore_live_ops_scene_state_v1', 'agentcore_live_ops_scene_state_v1'],
  ])('%s → %s', (input, expected) => {
    expect(applyPublicTerms(input, glossary)).toBe(expected);
  });

  it('rewrites keys and values at any depth', () => {
    expect(applyPublicTerms({ winhost: [{ note: 'vmx on winhost' }] }, glossary)).toEqual({
      'windows-host': [{ note: 'vm-config on windows-host' }],
    });
  });

  it('loads the committed glossary', () => {
    expect(loadPublicTerms().terms.length).toBeGreaterThan(3);
  });

  it.each([[{}], [{ terms: [] }], [{ terms: { 'bad name': 'x' } }], [{ terms: { ok: '' } }]])(
    'refuses the glossary %j',
    (document) => {
      expect(() => compilePublicTerms(document, 'file.yaml')).toThrow(
        /public terms file file\.yaml/,
      );
    },
  );
});
