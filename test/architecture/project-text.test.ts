import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * The README is for the people who run the service: at most 500 lines, Alertmanager within
 * its first 150. The project's text speaks of the project: never of a "session" or an
 * "issue N" a reader cannot look up (a chat session and `sessionStorage` are ordinary words).
 */
const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n');

function filesUnder(folder: string, endings: string[]): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => endings.some((ending) => file.endsWith(ending)))
    .map((file) => path.join(folder, file));
}

describe('the project text', () => {
  it('has a README of at most 500 lines that reaches Alertmanager within 150', () => {
    expect(README.length - (README.at(-1) === '' ? 1 : 0)).toBeLessThanOrEqual(500);
    const alertmanager = README.findIndex((line) => line.startsWith('## Connecting Alertmanager'));
    expect(alertmanager).toBeGreaterThanOrEqual(0);
    expect(alertmanager + 1).toBeLessThanOrEqual(150);
  });

  it('names no session and no issue number in the README, docs, bench, config, console or source', () => {
    const files = [
      'README.md',
      ...filesUnder('docs', ['.md']),
      ...filesUnder('bench', ['.md', '.ts', '.sh']),
      ...filesUnder('src', ['.ts']),
      ...filesUnder('console/src', ['.ts', '.tsx', '.css']),
      ...filesUnder('config', ['.yaml', '.yml']),
      ...filesUnder('deploy', ['.yaml', '.yml', '.example', 'Dockerfile']),
      ...filesUnder('test', ['.ts']).filter((file) => !file.endsWith('project-text.test.ts')),
    ];
    const found: string[] = [];
    for (const file of files) {
      const lines = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        const words = line.replace(/sessionStorage|chat session/gi, '');
        if (/\bsessions?\b|\bissue [0-9]+/i.test(words) && !PERMITTED.test(line)) {
          found.push(`${file}:${index + 1}: ${line.trim()}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});

/**
 * Ordinary uses in tests: PostgreSQL's sessions holding row locks, and fixtures quoting
 * other programs (an error tracker's stack frame, a missing `sessions` table).
 */
const PERMITTED =
  /row lock|waits behind this lock|another session|Sessions blocked|no such table: sessions|table 'sessions'|req\.session|requireSession/i;
