import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * STYLE: state that batches or caches lives inside the capability that owns it, created and
 * closed with it, never in a module-level `Map` keyed by a store. A module is loaded once per
 * process, so state at its top level outlives every service built in it (a test's apps, a
 * consumer beside the server) and is shared between them. Top-level `let`/`var`, and a `Map`,
 * `WeakMap`, `Set` or `WeakSet` built at the top level, are refused; a constant table is
 * allowed when its type says it cannot change (`ReadonlyMap`, `ReadonlySet`), which the
 * compiler then holds it to.
 */
const COLLECTIONS = new Set(['Map', 'WeakMap', 'Set', 'WeakSet']);
const READ_ONLY = /^Readonly(Map|Set)\b/;

function moduleState(text: string, file = 'sample.ts'): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lineOf = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const mutable = (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !== ts.NodeFlags.Const;
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(source);
      if (mutable) {
        found.push(`${file}:${lineOf(declaration)} ${name} (a top-level let/var)`);
        continue;
      }
      const built = collectionBuilt(declaration.initializer);
      if (!built) continue;
      const typed = declaration.type?.getText(source) ?? '';
      if (READ_ONLY.test(typed)) continue;
      found.push(`${file}:${lineOf(declaration)} ${name} (a top-level new ${built})`);
    }
  }
  return found;
}

/** `new Map(…)`, also behind `as`, `satisfies` or parentheses. */
function collectionBuilt(node: ts.Expression | undefined): string | undefined {
  let expression = node;
  while (
    expression &&
    (ts.isAsExpression(expression) ||
      ts.isSatisfiesExpression(expression) ||
      ts.isParenthesizedExpression(expression))
  ) {
    expression = expression.expression;
  }
  if (!expression || !ts.isNewExpression(expression)) return undefined;
  const callee = expression.expression;
  return ts.isIdentifier(callee) && COLLECTIONS.has(callee.text) ? callee.text : undefined;
}

describe('no module-level state under src/features', () => {
  it('finds top-level collections and lets, and lets read-only tables and local state be', () => {
    const sample = [
      "import { x } from './x.js';",
      'const writers = new WeakMap<object, number>();',
      'let turn: Promise<void> | undefined;',
      'const SEEN = new Set<string>() as Set<string>;',
      "const RANKS: ReadonlyMap<string, number> = new Map([['low', 1]]);",
      "const KINDS: ReadonlySet<string> = new Set(['a']);",
      'const LIMIT = 10;',
      'export function make() {',
      '  const local = new Map<string, string>();',
      '  let count = 0;',
      '  return () => local.set(String(count++), "");',
      '}',
    ].join('\n');
    expect(moduleState(sample)).toEqual([
      'sample.ts:2 writers (a top-level new WeakMap)',
      'sample.ts:3 turn (a top-level let/var)',
      'sample.ts:4 SEEN (a top-level new Set)',
    ]);
  });

  it('no file under src/features keeps state at its top level', () => {
    const files = sourceFiles('src/features');
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      moduleState(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'), file),
    );
    expect(found).toEqual([]);
  });
});
