import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFlags, startFlagsOfPackage } from '../../bench/lib/service.js';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * `npm start`, the sample image and the bench start the service with the same Node flags: a
 * flag that only the bench passed would measure a service nobody runs, and one the image
 * lacked would run a service slower than the README says.
 */

/** What the bench gives the service and its baselines: `npm start`'s flags. */
const benchFlags = startFlagsOfPackage();

function dockerCommand(): string[] {
  const dockerfile = fs.readFileSync(path.join(REPO_ROOT, 'deploy/Dockerfile'), 'utf8');
  const line = dockerfile.split('\n').find((text) => text.startsWith('CMD '));
  if (!line?.startsWith('CMD [')) throw new Error('deploy/Dockerfile has no exec-form CMD');
  return JSON.parse(line.slice('CMD '.length));
}

/** V8's heap limit under `flags`, in MiB: each MiB of semi-space adds three to it. */
function heapLimitMiB(flags: string[]): number {
  const output = execFileSync(
    process.execPath,
    [...flags, '-p', 'require("v8").getHeapStatistics().heap_size_limit / 2 ** 20'],
    // An inherited NODE_OPTIONS would change the baseline this compares against.
    { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return Number(output);
}

describe('the Node flags the service starts with', () => {
  it('are the same in npm start and the sample image', () => {
    expect(dockerCommand()).toEqual(['node', ...benchFlags, 'dist/src/server.js']);
  });

  it('give V8 semi-spaces of 64 MiB', () => {
    expect(benchFlags).toContain('--max-semi-space-size=64');
    // The limit grows by three times the semi-space's growth, whatever the default was.
    const fromDefault = heapLimitMiB(benchFlags) - heapLimitMiB([]);
    const fromSixteen = heapLimitMiB(benchFlags) - heapLimitMiB(['--max-semi-space-size=16']);
    expect(fromSixteen).toBe(3 * (64 - 16));
    expect(fromDefault).toBeGreaterThan(0);
  });

  it('are read from a start script of the shape node [flags] dist/src/server.js', () => {
    expect(startFlags('node dist/src/server.js')).toEqual([]);
    expect(startFlags(' node  --a --b=1 dist/src/server.js ')).toEqual(['--a', '--b=1']);
    expect(() => startFlags('tsx src/server.ts')).toThrow(/scripts.start is not/);
    expect(() => startFlags('node dist/src/server.js --port 1')).toThrow(/scripts.start is not/);
    expect(() => startFlags('node x.js && node dist/src/server.js')).toThrow(
      /scripts.start is not/,
    );
    expect(() => startFlags('node --title="a b" dist/src/server.js')).toThrow(/is not/);
    expect(() => startFlags('node --env-file=./.env dist/src/server.js')).toThrow(/relative/);
  });
});
