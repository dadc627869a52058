import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * STYLE, Habits: "the catalog in `errors.ts` names every fixed detail string once". Outside
 * the catalog no code builds an HttpError from a literal detail, and no code spells out a
 * text the catalog already defines: a search for a detail string finds one definition.
 */

const ROOT = REPO_ROOT;
const CATALOG_FILES = new Set(['src/errors.ts']);
/** Fixed parts shorter than this (`: `, ` bytes`) are too common to be a detail's own text. */
const MIN_FIXED_TEXT = 10;
const ERROR_CODE = /^[a-z]+(_[a-z]+)+$/;

function parse(file: string, text = fs.readFileSync(path.join(ROOT, file), 'utf8')) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

function lineOf(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** A string literal, a template, or a `+` with a literal on either side. */
function isLiteralText(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return isLiteralText(node.expression);
  if (
    ts.isStringLiteral(node) ||
    ts.isNoSubstitutionTemplateLiteral(node) ||
    ts.isTemplateExpression(node)
  ) {
    return true;
  }
  return (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
    (isLiteralText(node.left) || isLiteralText(node.right))
  );
}

/** `new HttpError(<status>, <literal or template>)` in one file, as `file:line code`. */
function literalHttpErrors(sf: ts.SourceFile): string[] {
  const found: string[] = [];
  walk(sf, (node) => {
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'HttpError' &&
      node.arguments?.[1] !== undefined &&
      isLiteralText(node.arguments[1])
    ) {
      found.push(`${sf.fileName}:${lineOf(sf, node)} ${node.getText(sf)}`);
    }
  });
  return found;
}

/** The fixed texts of a file: whole string literals, and the literal parts of templates. */
function fixedTexts(sf: ts.SourceFile): Array<{ text: string; line: number }> {
  const texts: Array<{ text: string; line: number }> = [];
  const add = (node: ts.Node, text: string) => {
    // An error code (`incident_not_found`) is a name to use, not a text to word once.
    if (ERROR_CODE.test(text)) return;
    if (text.trim().length >= MIN_FIXED_TEXT) texts.push({ text, line: lineOf(sf, node) });
  };
  walk(sf, (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      // Module specifiers are paths, not texts answered to anyone.
      if (!ts.isImportDeclaration(node.parent) && !ts.isExportDeclaration(node.parent))
        add(node, node.text);
    } else if (ts.isTemplateExpression(node)) {
      add(node, node.head.text);
      for (const span of node.templateSpans) add(span, span.literal.text);
    }
  });
  return texts;
}

const files = sourceFiles('src');
const catalog = files.filter((file) => CATALOG_FILES.has(file)).map((file) => parse(file));
const others = files.filter((file) => !CATALOG_FILES.has(file)).map((file) => parse(file));

describe('the error catalog (src/errors.ts)', () => {
  it('finds the catalog and what it defines', () => {
    // A walker that found nothing would pass everything.
    expect(catalog.map((sf) => sf.fileName)).toEqual([...CATALOG_FILES]);
    expect(catalog.flatMap(literalHttpErrors).length).toBeGreaterThan(15);
    const texts = catalog.flatMap(fixedTexts).map((t) => t.text);
    expect(texts).toContain('Invalid callback data');
    expect(texts).toContain('Approval not found: ');
    expect(texts).toContain('Canary requires operator authentication');
    expect(others.length).toBeGreaterThan(100);
  });

  it.each<[string, string, number]>([
    ['a string literal', "throw new HttpError('read_api_closed', 'Nope');", 1],
    ['a template', `throw new HttpError('chat_api_failed', \`Chat API error: \${reason}\`);`, 1],
    ['a concatenation', "throw new HttpError('bad_query', 'Bad ' + field);", 1],
    ['a catalog entry', 'throw errors.testPushInProd();', 0],
    ['a detail passed on', "throw new HttpError('request_refused', error.message, { status });", 0],
  ])('tells %s apart', (_case, code, count) => {
    expect(literalHttpErrors(parse('probe.ts', code))).toHaveLength(count);
  });

  it('is the only place that builds an HttpError from a literal detail', () => {
    expect(others.flatMap(literalHttpErrors)).toEqual([]);
  });

  it('defines each fixed text once', () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const sf of catalog) {
      for (const { text, line } of fixedTexts(sf)) {
        const first = seen.get(text);
        if (first) repeated.push(`${sf.fileName}:${line} ${JSON.stringify(text)} (also ${first})`);
        else seen.set(text, `${sf.fileName}:${line}`);
      }
    }
    expect(repeated).toEqual([]);
  });

  it('is the only place that spells out a text the catalog defines', () => {
    const defined = new Map(
      catalog.flatMap((sf) => fixedTexts(sf).map((t) => [t.text, `${sf.fileName}:${t.line}`])),
    );
    const copies = others.flatMap((sf) =>
      fixedTexts(sf)
        .filter((t) => defined.has(t.text))
        .map((t) => `${sf.fileName}:${t.line} ${JSON.stringify(t.text)} (${defined.get(t.text)})`),
    );
    expect(copies).toEqual([]);
  });
});
