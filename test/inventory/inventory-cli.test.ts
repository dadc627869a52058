import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidDocument, fixture, json, REPO_ROOT } from './inventory-helpers.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI as `npm run inventory` runs it (tsx), without npm's own output around it. */
function inventoryCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/inventory-cli.ts', ...args],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('npm run inventory -- [root] [--out file]', () => {
  let scratch: string;
  let out: string;
  let inSync: Run;
  let drifted: Run;
  let written: Run;
  let fromEnv: Run;
  let missing: Run;
  let unparsable: Run;
  let badArgs: Run;
  // Seven tsx processes at once on a busy machine: more than the default hook time.
  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'inventory-cli-'));
    const broken = path.join(scratch, 'broken');
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, 'package.json'), json({ name: 'broken' }));
    fs.writeFileSync(path.join(broken, 'package-lock.json'), '{ "lockfileVersion": ');
    out = path.join(scratch, 'inventory.json');

    // one process each, started together: the suite waits for the slowest, not for the sum
    [inSync, drifted, written, fromEnv, missing, unparsable, badArgs] = await Promise.all([
      inventoryCli([fixture('yarn-berry')]),
      inventoryCli([fixture('npm-workspaces-drifted')]),
      inventoryCli([fixture('pnpm-catalog-drifted'), '--out', out]),
      inventoryCli([], { INVENTORY_ROOT: fixture('yarn-classic') }),
      inventoryCli([path.join(scratch, 'nowhere')]),
      inventoryCli([broken]),
      inventoryCli(['a', 'b']),
    ]);
  }, 120_000);
  afterAll(() => {
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('prints the document and exits 0 when the lock file is in sync', () => {
    expect(inSync.code).toBe(0);
    const document = JSON.parse(inSync.stdout);
    expectValidDocument(document);
    expect(document.lockfile_summary.status).toBe('in_sync');
    expect(inSync.stderr).toContain('yarn.lock in_sync');
  });

  it('exits 1 when drift needs action', () => {
    expect(drifted.code).toBe(1);
    expectValidDocument(JSON.parse(drifted.stdout));
    expect(drifted.stderr).toContain('package-lock.json action_required, 3 finding(s)');
  });

  it('writes the document to --out, printing only the summary line', () => {
    expect(written.code).toBe(1);
    expect(written.stdout).toBe('');
    const document = JSON.parse(fs.readFileSync(out, 'utf8'));
    expectValidDocument(document);
    expect(document.program_status.current_task_id).toBe('missing_in_lockfile:packages/util');
    expect(written.stderr).toContain(`written to ${out}`);
  });

  it('falls back to INVENTORY_ROOT without a root argument', () => {
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout).lockfile_summary.lockfile_version).toBe('1');
  });

  it('exits 2 when there is no workspace, an unparsable file, or bad arguments', () => {
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No JavaScript workspace found');
    expect(unparsable.code).toBe(2);
    expect(unparsable.stderr).toContain('package-lock.json: is not valid JSON');
    expect(badArgs.code).toBe(2);
    expect(badArgs.stderr).toContain('usage: npm run inventory');
    for (const run of [missing, unparsable, badArgs]) expect(run.stdout).toBe('');
  });
});
