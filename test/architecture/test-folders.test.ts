import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';
import { tempDir } from '../helpers/backends.js';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * STYLE, Our shape: `test/<feature>/` holds the behaviour tests of `src/features/<feature>`,
 * so a feature's tests are found where the feature is. And the projects of vitest.config.ts
 * name files by path: a file moved away from its name drops into the `fast` project without a
 * word, so every name must still be a file and every pattern must still match one.
 */

/** The folders of `src/features` with no `*.test.ts` file in `test/<folder>/`, sorted. */
function featuresWithoutTests(root: string): string[] {
  const features = fs
    .readdirSync(path.join(root, 'src/features'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  return features
    .filter((feature) => {
      const folder = path.join(root, 'test', feature);
      return !fs.existsSync(folder) || !fs.readdirSync(folder).some(isTestFile);
    })
    .sort();
}

function isTestFile(name: string): boolean {
  return name.endsWith('.test.ts');
}

/** Every entry of the projects' include and exclude lists, once each. */
function projectEntries(): string[] {
  const entries = new Set<string>();
  for (const project of config.test?.projects ?? []) {
    if (typeof project !== 'object' || !('test' in project)) continue;
    for (const entry of [...(project.test?.include ?? []), ...(project.test?.exclude ?? [])]) {
      entries.add(entry);
    }
  }
  return [...entries].sort();
}

/** The lists hold paths and `*`/`**` patterns only; anything else must be taught here first. */
function patternRegExp(pattern: string): RegExp {
  if (/[?[\]{}!]/.test(pattern) || pattern.endsWith('**')) {
    throw new Error(`a pattern this check cannot read: ${pattern}`);
  }
  const segments = pattern.split('/');
  const last = segments.pop()!;
  const folders = segments
    .map((segment) => (segment === '**' ? '(?:[^/]+/)*' : `${segmentSource(segment)}/`))
    .join('');
  return new RegExp(`^${folders}${segmentSource(last)}$`);
}

function segmentSource(segment: string): string {
  return segment.replace(/[.+^$()|\\]/g, '\\$&').replaceAll('*', '[^/]*');
}

/** The entries that name no file below `root` (a path) or match none (a pattern). */
function entriesMatchingNothing(root: string, entries: string[]): string[] {
  const files = fs
    .readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .map((name) => path.posix.join('test', name.split(path.sep).join('/')));
  return entries.filter((entry) => {
    if (!entry.includes('*')) return !fs.existsSync(path.join(root, entry));
    const pattern = patternRegExp(entry);
    return !files.some((file) => pattern.test(file));
  });
}

/** A repository of empty files at the given relative paths, removed when `use` is done. */
function withTree(files: string[], use: (root: string) => void): void {
  const root = tempDir('test-folders-');
  try {
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), '');
    }
    use(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe('test/ mirrors src/features (STYLE, Our shape)', () => {
  it('has a folder of tests for every feature folder', () => {
    const missing = featuresWithoutTests(REPO_ROOT);
    expect(
      missing,
      `feature folders without tests in test/<folder>/:\n${missing.join('\n')}`,
    ).toEqual([]);
  });

  it('names a feature whose test folder is missing or holds no test', () => {
    withTree(
      [
        'src/features/cards/card-sender.ts',
        'src/features/oplog/operation-log.ts',
        'src/features/outbox/outbox-relay.ts',
        'test/cards/card-sender.test.ts',
        'test/oplog/oplog-fixtures.ts',
      ],
      (root) => expect(featuresWithoutTests(root)).toEqual(['oplog', 'outbox']),
    );
  });
});

describe("vitest.config.ts's projects name files that exist", () => {
  it('has a file for every path and one for every pattern', () => {
    const entries = projectEntries();
    expect(entries).toContain('test/**/*.test.ts');
    const stale = entriesMatchingNothing(REPO_ROOT, entries);
    expect(stale, `entries of vitest.config.ts that match no file:\n${stale.join('\n')}`).toEqual(
      [],
    );
  });

  it('names a path that moved and a pattern that matches nothing', () => {
    withTree(['test/cards/card-sender.test.ts', 'test/reliability/redis-outage.test.ts'], (root) =>
      expect(
        entriesMatchingNothing(root, [
          'test/cards/card-sender.test.ts',
          'test/chat/card-sender.test.ts',
          'test/reliability/*.test.ts',
          'test/**/*.e2e.test.ts',
          'test/**/*.test.ts',
        ]),
      ).toEqual(['test/chat/card-sender.test.ts', 'test/**/*.e2e.test.ts']),
    );
  });
});
