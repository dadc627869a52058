import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * STYLE, Habits: "One records module per table: the only file that names the table in a
 * query; every other file calls it." Every call that takes a table (Kysely's query starts and
 * joins, and the read API's `listNewestFirst`) is found in `src/`, and each table named in one
 * may be named so in one file only. A table passed as anything but a literal hides which table
 * it is, so that is allowed only where the generic code that receives the name lives.
 * Migrations create every table and are exempt.
 */

const ROOT = REPO_ROOT;
const TABLES_FILE = 'src/ports/tables.ts';
/** Migrations create and reshape every table: `migrations.ts` and its `migrations/` steps. */
const isMigration = (file: string) =>
  file === 'src/adapters/sql/migrations.ts' || file.startsWith('src/adapters/sql/migrations/');

/** Calls that take a table, and which argument holds it. */
const TABLE_ARGUMENT = new Map<string, number>([
  ['selectFrom', 0],
  ['insertInto', 0],
  ['replaceInto', 0],
  ['updateTable', 0],
  ['deleteFrom', 0],
  ['mergeInto', 0],
  ['innerJoin', 0],
  ['leftJoin', 0],
  ['rightJoin', 0],
  ['fullJoin', 0],
  ['crossJoin', 0],
  ['innerJoinLateral', 0],
  ['leftJoinLateral', 0],
  ['crossJoinLateral', 0],
  // src/support/newest-first.ts: listNewestFirst(db, table, filters, page, listing)
  ['listNewestFirst', 1],
  // src/support/built-once.ts: insertBuiltOnce(table, columns, finish)
  ['insertBuiltOnce', 0],
]);

/**
 * An adapter that implements one port may spread over a few files; it owns its tables
 * together. The SQL stream: appends, group reads and the shared row queries. The SQL job
 * queue: its claims, its runs' ends and the rows they share. A records module may spread
 * too, when one file would no longer read in one sitting: the incidents' rows and moves,
 * and the counts that metrics and readbacks take of them; the operation log's append, and
 * what other features read from it; the error tracker's recorded stages, and what the read
 * API and readbacks read of them.
 */
const OWNER_GROUPS: ReadonlyArray<readonly [string, (file: string) => boolean]> = [
  ['the SQL stream adapter', (file) => /^src\/adapters\/sql\/sql-stream(-[a-z]+)?\.ts$/.test(file)],
  [
    'the SQL job queue adapter',
    (file) => /^src\/adapters\/sql\/sql-jobs?(-[a-z]+)?\.ts$/.test(file),
  ],
  [
    'the incidents records',
    (file) => /^src\/features\/incidents\/incident-(records|counts)\.ts$/.test(file),
  ],
  [
    'the operation log records',
    (file) => /^src\/features\/oplog\/operation-(log|reads)\.ts$/.test(file),
  ],
  [
    'the external alert event records',
    (file) => /^src\/features\/errtracker\/external-event-(records|reads)\.ts$/.test(file),
  ],
];
const ownerOf = (file: string) => OWNER_GROUPS.find(([, member]) => member(file))?.[0] ?? file;

/** Where a table arrives as a value: the generic code its literal-passing callers call. */
const DYNAMIC_ALLOWED = new Set(['src/support/newest-first.ts', 'src/support/built-once.ts']);

interface TableUse {
  table: string;
  file: string;
  line: number;
}

function parse(file: string): ts.SourceFile {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** The members of `interface Tables`. */
function tableNames(): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'Tables') {
      for (const member of node.members) {
        if (member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) {
          names.add(member.name.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(TABLES_FILE));
  return names;
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  if (ts.isIdentifier(callee)) return callee.text;
  return undefined;
}

/** The tables an argument names: `'t'`, `'t as alias'`, `['t', 'u']`; undefined if not literal. */
function namedTables(argument: ts.Expression): string[] | undefined {
  if (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)) {
    return [argument.text.trim().split(/\s+/)[0] ?? ''];
  }
  if (ts.isArrayLiteralExpression(argument)) {
    const names = argument.elements.map(namedTables);
    return names.every((list) => list !== undefined) ? names.flat() : undefined;
  }
  return undefined;
}

function tableUses(files: readonly string[]) {
  const uses: TableUse[] = [];
  const dynamic: TableUse[] = [];
  for (const file of files) {
    const sf = parse(file);
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node)) {
        const name = calleeName(node);
        const index = name === undefined ? undefined : TABLE_ARGUMENT.get(name);
        const argument = index === undefined ? undefined : node.arguments[index];
        if (argument) {
          const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
          // A join's callback form (`leftJoin('t', (join) => …)`) still names `t` first;
          // a function or an aliased subquery as the table is a derived table, not a stored one.
          const derived = ts.isArrowFunction(argument) || ts.isFunctionExpression(argument);
          const names = namedTables(argument);
          if (names) for (const table of names) uses.push({ table, file, line });
          else if (!derived) dynamic.push({ table: argument.getText(sf), file, line });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { uses, dynamic };
}

function ownerMap(tables: ReadonlySet<string>, uses: readonly TableUse[]) {
  const owners = new Map<string, Set<string>>(
    [...tables].sort().map((table) => [table, new Set()]),
  );
  for (const use of uses) owners.get(use.table)?.add(ownerOf(use.file));
  return owners;
}

function describeOwners(owners: Map<string, Set<string>>): string {
  return [...owners]
    .map(([table, files]) => `${table}: ${[...files].join(', ') || '(no query)'}`)
    .join('\n');
}

describe('table owners (STYLE: one records module per table)', () => {
  const tables = tableNames();
  const files = sourceFiles('src').filter((file) => !isMigration(file));
  const { uses, dynamic } = tableUses(files);
  const owners = ownerMap(tables, uses);

  it('reads the tables and the queries (the check is not vacuous)', () => {
    expect(tables.size).toBeGreaterThanOrEqual(19);
    for (const table of ['incidents', 'approvals', 'operation_log', 'chat_cards']) {
      expect(tables.has(table), table).toBe(true);
    }
    expect(uses.length).toBeGreaterThan(50);
    // Every name a query takes is a table of the schema (a typo would not typecheck anyway).
    expect(uses.filter((use) => !tables.has(use.table))).toEqual([]);
  });

  it('names each table in a query in one file only', () => {
    console.info(`Table owners:\n${describeOwners(owners)}`);
    const shared = [...owners]
      .filter(([, owning]) => owning.size > 1)
      .map(([table]) => ({
        table,
        sites: uses.filter((use) => use.table === table).map((use) => `${use.file}:${use.line}`),
      }));
    expect(
      shared,
      `tables queried from more than one file; move each query into the table's records module\n${describeOwners(owners)}`,
    ).toEqual([]);
  });

  it('passes tables as literals, except to the generic listing that receives them', () => {
    const hidden = dynamic
      .filter((use) => !DYNAMIC_ALLOWED.has(use.file))
      .map((use) => `${use.file}:${use.line} ${use.table}`);
    expect(
      hidden,
      'a table passed as a value hides its owner; name it in its records module',
    ).toEqual([]);
  });
});
