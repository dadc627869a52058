import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * README, Testing: `npm ci && npm test` passes on a machine where neither PostgreSQL nor
 * Redis is configured. Every file must load there: a suite that needs a service skips with
 * one line saying what to set, never throws while it is collected.
 */

/** The environment of a new clone: no service URLs, no CI switch, nothing of this run. */
function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (['DATABASE_URL', 'REDIS_URL', 'REQUIRE_SERVICES', 'NODE_ENV'].includes(key)) continue;
    if (key.startsWith('VITEST') || key === 'TEST') continue;
    env[key] = value;
  }
  return env;
}

function vitestWithoutServices(args: string[]): Promise<{ code: number | null; output: string }> {
  const vitest = path.join(REPO_ROOT, 'node_modules/vitest/vitest.mjs');
  const child = spawn(process.execPath, [vitest, ...args], {
    cwd: REPO_ROOT,
    env: bareEnv(),
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/**
 * One worker, run beside the rest of the suite: each module is imported once, not once per
 * worker, which halves the CPU this check takes from the suites around it.
 */
const ONE_WORKER = ['--maxWorkers=1'];

describe('the suite without PostgreSQL or Redis', () => {
  it('loads every file, and a file whose suites all need a service skips them', async () => {
    const outputFile = path.join(tempDir('list-'), 'tests.json');
    const { code, output } = await vitestWithoutServices([
      'list',
      ...ONE_WORKER,
      `--json=${outputFile}`,
    ]);
    expect(output).not.toMatch(/Error|No test suite found/);
    expect(code).toBe(0);
    const listed = JSON.parse(fs.readFileSync(outputFile, 'utf8')) as Array<{ file: string }>;
    const listedFiles = new Set(listed.map((test) => path.relative(REPO_ROOT, test.file)));
    // Most files run embedded; only the suites of a service skip.
    expect(listedFiles.size).toBeGreaterThan(150);

    // A file with every suite skipped is not listed: run those, which must skip, not fail
    // ("No test suite found" where a suite over an empty list of backends registers none).
    const unlisted = testFiles().filter((file) => !listedFiles.has(file));
    expect(unlisted.length).toBeGreaterThan(0);
    const run = await vitestWithoutServices(['run', ...ONE_WORKER, '--no-isolate', ...unlisted]);
    expect(run.output).not.toMatch(/No test suite found|FAIL/);
    expect(run.code).toBe(0);
  }, 240_000);
});

function testFiles(): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join('test', file));
}
