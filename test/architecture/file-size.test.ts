import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/** STYLE: files small enough to read in one sitting; generated files aside. */
const MOST_LINES = 300;

function longFiles(dir: string): string[] {
  return [...sourceFiles(dir), ...tsxFiles(dir)]
    .filter((file) => !file.includes('.generated.'))
    .map((file) => ({
      file,
      lines: fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n').length - 1,
    }))
    .filter(({ lines }) => lines > MOST_LINES)
    .map(({ file, lines }) => `${file} (${lines} lines)`);
}

function tsxFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.tsx'))
    .map((name) => path.posix.join(dir, name.split(path.sep).join('/')));
}

describe('file size', () => {
  it.each(['src', 'console/src'])(`keeps every file of %s within ${MOST_LINES} lines`, (dir) => {
    expect(sourceFiles(dir).length).toBeGreaterThan(10);
    expect(longFiles(dir)).toEqual([]);
  });
});
