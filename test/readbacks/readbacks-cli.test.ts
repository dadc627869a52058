import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitReadback } from '../../src/features/readbacks/commit-readback.js';
import { runReadbacksCommand } from '../../src/features/readbacks/readbacks-command.js';
import { REPO_ROOT, readbackDir, writeDoc } from './readback-helpers.js';

const NAME = 'agent-report-status-board';

function bigVersion(version: number): Buffer {
  // ~300 KB, so a torn write would be visible to a concurrent reader
  const rows = Array.from({ length: 3000 }, (_, i) => ({ i, version, filler: 'x'.repeat(80) }));
  return Buffer.from(JSON.stringify({ version, rows }));
}

describe('commitReadback', () => {
  it('replaces the file by rename and keeps every earlier version in the history folder', () => {
    const dir = readbackDir();
    const first = commitReadback(dir, NAME, Buffer.from('{"v":1}'));
    expect(first.previous).toBeNull();
    const inode = fs.statSync(first.file).ino;
    const second = commitReadback(
      dir,
      NAME,
      Buffer.from('{"v":2}'),
      new Date('2026-11-22T00:00:00Z'),
    );
    expect(fs.readFileSync(second.file, 'utf8')).toBe('{"v":2}');
    expect(fs.statSync(second.file).ino).not.toBe(inode);
    expect(second.previous).toMatch(
      /history\/agent-report-status-board\/2026-11-22T00-00-00-000Z-[0-9a-f]{12}\.json$/,
    );
    expect(fs.readFileSync(second.previous!, 'utf8')).toBe('{"v":1}');
    expect(fs.readdirSync(dir).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  it.each([
    ['not JSON', '{"v":', /not valid JSON/],
    ['not an object', '[1]', /not a JSON object/],
  ])('refuses %s and leaves the current version in place', (_what, text, reason) => {
    const dir = readbackDir();
    commitReadback(dir, NAME, Buffer.from('{"v":1}'));
    expect(() => commitReadback(dir, NAME, Buffer.from(text))).toThrow(reason);
    expect(fs.readFileSync(path.join(dir, `${NAME}.json`), 'utf8')).toBe('{"v":1}');
    expect(fs.existsSync(path.join(dir, 'history'))).toBe(false);
  });

  it('checks the committed schema before writing', () => {
    const dir = readbackDir();
    fs.mkdirSync(path.join(dir, 'schemas'));
    fs.writeFileSync(
      path.join(dir, 'schemas', `${NAME}.schema.json`),
      '{"type":"object","required":["board"]}',
    );
    expect(() => commitReadback(dir, NAME, Buffer.from('{"v":1}'))).toThrow(/fails its schema/);
    expect(commitReadback(dir, NAME, Buffer.from('{"board":[]}')).sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a reader in another process never sees a half-written file', async () => {
    const dir = readbackDir();
    commitReadback(dir, NAME, bigVersion(0));
    const file = path.join(dir, `${NAME}.json`);
    const reader = spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); let reads = 0, torn = 0; const end = Date.now() + 1500;
       while (Date.now() < end) { try { JSON.parse(fs.readFileSync(${JSON.stringify(file)}, 'utf8')); reads++; } catch { torn++; } }
       process.stdout.write(JSON.stringify({ reads, torn }));`,
    ]);
    let out = '';
    reader.stdout.on('data', (chunk) => {
      out += chunk;
    });
    const done = new Promise<void>((resolve) => reader.on('close', () => resolve()));
    let version = 1;
    const deadline = Date.now() + 1200;
    while (Date.now() < deadline) {
      commitReadback(dir, NAME, bigVersion(version++));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    const { reads, torn } = JSON.parse(out) as { reads: number; torn: number };
    expect(version).toBeGreaterThan(5);
    expect(reads).toBeGreaterThan(10);
    expect(torn).toBe(0);
  });
});

function cli(args: string[], dir: string) {
  let stdout = '';
  let stderr = '';
  const status = runReadbacksCommand([...args, '--dir', dir], {}, REPO_ROOT, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { status, stdout, stderr };
}

describe('npm run readbacks', () => {
  it('lists, validates and commits', () => {
    const dir = readbackDir();
    writeDoc(dir, 'agent-report-automation-review', '{"ok":true}');
    writeDoc(dir, 'agent-report-status-board', '[not an object]');
    const listed = cli(['list'], dir);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(
      /^present\s+committed\s+required\s+agent-report-automation-review$/m,
    );
    expect(listed.stdout).toMatch(/^invalid\s+committed\s+required\s+agent-report-status-board$/m);
    expect(listed.stdout).toMatch(
      /^missing\s+live\s+required\s+platform-priority-work-order-readback$/m,
    );

    const checked = cli(['validate'], dir);
    expect(checked.status).toBe(1);
    expect(checked.stdout).toMatch(/INVALID agent-report-status-board: not valid JSON/);

    const source = path.join(dir, 'new-board.json.in');
    fs.writeFileSync(source, '{"board":["ready"]}');
    const committed = cli(['commit', 'agent-report-status-board', source], dir);
    expect(committed.status).toBe(0);
    expect(committed.stderr).toMatch(
      /committed agent-report-status-board \([0-9a-f]{12}\); previous kept as/,
    );
    expect(cli(['validate'], dir).status).toBe(0);

    expect(cli(['commit', 'no-such-readback', source], dir).status).toBe(1);
    expect(cli(['frobnicate'], dir).status).toBe(2);
  });

  it('runs as `npm run readbacks` (the script entry point)', () => {
    const dir = readbackDir();
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'src/readbacks-cli.ts'), 'list'],
      {
        encoding: 'utf8',
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, READBACK_DIR: dir },
      },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/0 present, \d+ missing, 0 invalid/);
  });
});
