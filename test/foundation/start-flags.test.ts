import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, startScriptNodeFlags } from '../../bench/lib/service.js';

/** The young generation's size as a node started with `flags` sees it, in MiB. */
function newSpaceMiB(flags: string[]): number {
  const probe = spawnSync(
    process.execPath,
    [
      ...flags,
      '-e',
      "process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))",
    ],
    { encoding: 'utf8' },
  );
  expect(probe.stderr).toBe('');
  expect(probe.status).toBe(0);
  return Number(probe.stdout) / 2 ** 20;
}

describe("node's flags for the service (README, The young generation at its full size)", () => {
  const flags = startScriptNodeFlags();

  it('npm start, the container and the bench start the service alike', () => {
    expect(flags).toEqual(['--min-semi-space-size=16']);
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'deploy/Dockerfile'), 'utf8');
    const command = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
    expect(command).toEqual(['node', ...flags, 'dist/src/server.js']);
  });

  it('start the young generation at its full default size, where node alone starts at 1 MiB', () => {
    expect(newSpaceMiB([])).toBe(1);
    expect(newSpaceMiB(flags)).toBe(16);
  });
});
