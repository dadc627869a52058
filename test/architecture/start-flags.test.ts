import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFlags } from '../../bench/lib/service.js';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * `npm start`, the sample image and the bench start the service with the same Node flags: a
 * flag that only the bench passed would measure a service nobody runs, and one the image
 * lacked would run a service slower than the README says.
 */

const startScript: string = JSON.parse(
  fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'),
).scripts.start;

function dockerCommand(): string[] {
  const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'deploy/Dockerfile'), 'utf8');
  const line = dockerfile.split('\n').find((text) => text.startsWith('CMD '));
  if (!line) throw new Error('deploy/Dockerfile has no CMD');
  return JSON.parse(line.slice('CMD '.length));
}

describe('the Node flags the service starts with', () => {
  it('are the same in npm start and the sample image', () => {
    expect(dockerCommand()).toEqual(['node', ...startFlags(startScript), 'dist/src/server.js']);
  });

  it('give the service a young generation of 64 MB semi-spaces', () => {
    // Under a steady allocation rate V8 grows the young generation to its limit: two
    // semi-spaces (and a little), so above 34 MB only when each may pass Node 20's 16 MB.
    const grown = `
      let live = [];
      for (let i = 0; i < 3e6; i++) { live.push({ i, text: 'x' + i }); if (live.length > 50000) live = []; }
      const young = require('v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
      console.log(young.space_size);`;
    const youngBytes = (flags: string[]) =>
      Number(execFileSync(process.execPath, [...flags, '-e', grown], { encoding: 'utf8' }));
    const defaultCeiling = 34 * 1024 * 1024;
    expect(youngBytes([])).toBeLessThanOrEqual(defaultCeiling);
    expect(youngBytes(startFlags(startScript))).toBeGreaterThan(defaultCeiling);
  });

  it('are read from a start script of the shape node [flags] dist/src/server.js', () => {
    expect(startFlags('node dist/src/server.js')).toEqual([]);
    expect(startFlags(' node  --a --b=1 dist/src/server.js ')).toEqual(['--a', '--b=1']);
    expect(() => startFlags('tsx src/server.ts')).toThrow(/start script is not/);
    expect(() => startFlags('node dist/src/server.js --port 1')).toThrow(/start script is not/);
  });
});
