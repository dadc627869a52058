import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * One folder per concern (docs/architecture.md): every `/incidents…` route is registered from
 * src/features/incidents and every `/approvals…` route from src/features/approvals. Each
 * route the built app documents is matched to the literal path a route call names in the
 * source; a route whose path is built elsewhere, or registered from another folder, fails.
 */

const HOMES: Record<string, string> = {
  incidents: 'src/features/incidents/',
  approvals: 'src/features/approvals/',
};
const ROUTE_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'route']);

interface RouteCall {
  file: string;
  /** The path as OpenAPI writes it (`{id}`), a template's `${…}` as a `*`. */
  pattern: string;
}

/** Each route call in `text` whose first argument is a literal path, string or template. */
function routeCallsIn(file: string, text: string): RouteCall[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const calls: RouteCall[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ROUTE_METHODS.has(node.expression.name.text)
    ) {
      const first = node.arguments[0];
      let literal: string | undefined;
      if (first && ts.isStringLiteralLike(first)) literal = first.text;
      if (first && ts.isTemplateExpression(first)) {
        literal =
          first.head.text + first.templateSpans.map((span) => `*${span.literal.text}`).join('');
      }
      if (literal?.startsWith('/')) {
        calls.push({ file, pattern: literal.replace(/:(\w+)/g, '{$1}') });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

const matches = (pattern: string, route: string) =>
  new RegExp(`^${pattern.split('*').map(escapeRegExp).join('[^/]+')}$`).test(route);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The calls that register `route` (a path below /api/v1), wherever they are. */
function registrationsOf(route: string, calls: readonly RouteCall[]): string[] {
  return calls.filter((call) => matches(call.pattern, route)).map((call) => call.file);
}

describe('each concern registers its routes from its own folder', () => {
  let built: TestApp;
  let routes: string[];
  const calls = sourceFiles('src').flatMap((file) =>
    routeCallsIn(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')),
  );

  beforeAll(async () => {
    built = await buildTestApp();
    const spec = built.app.swagger() as { paths: Record<string, unknown> };
    routes = Object.keys(spec.paths)
      .filter((route) => route.startsWith('/api/v1/'))
      .map((route) => route.slice('/api/v1'.length));
  });
  afterAll(() => built.close());

  for (const [concern, home] of Object.entries(HOMES)) {
    it(`registers every /${concern} route from ${home}`, () => {
      const owned = routes.filter((route) => route.split('/')[1] === concern);
      expect(owned.length).toBeGreaterThan(1);
      const astray = owned.flatMap((route) => {
        const files = registrationsOf(route, calls);
        if (files.length === 0) return [`${route}: no route call names this path`];
        return files.filter((file) => !file.startsWith(home)).map((file) => `${route}: ${file}`);
      });
      expect(astray, astray.join('\n')).toEqual([]);
    });
  }

  it('finds a route registered from another folder, and one whose path is not a literal', () => {
    const elsewhere = routeCallsIn(
      'src/features/escalation/x.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text to scan, not a template
      "app.post(`/incidents/:id/${action}`, {}, h); typed.get('/approvals', h); app.get(path, h);",
    );
    expect(registrationsOf('/incidents/{id}/resolve', elsewhere)).toEqual([
      'src/features/escalation/x.ts',
    ]);
    expect(registrationsOf('/approvals', elsewhere)).toEqual(['src/features/escalation/x.ts']);
    expect(registrationsOf('/approvals/{id}', elsewhere)).toEqual([]);
  });
});
