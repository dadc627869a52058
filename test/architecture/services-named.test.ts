import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * STYLE: a capability names the dependencies it uses. No feature takes the whole `Services`
 * (a `Pick` of it, or a field's type such as `Services['config']`, names what is used).
 */
const WHOLE_SERVICES = /:\s*Services\b(?!\s*[[.])|<Services>|WeakMap<Services\b/;

function wholeServices(text: string): number[] {
  return text.split('\n').flatMap((line, index) => (WHOLE_SERVICES.test(line) ? [index + 1] : []));
}

describe('features name the services they use', () => {
  it('tells a whole Services from a Pick of it', () => {
    expect(wholeServices('export function f(services: Services) {}')).toEqual([1]);
    expect(wholeServices("function f(services: Pick<Services, 'store'>) {}")).toEqual([]);
    expect(wholeServices("function f(config: Services['config']) {}")).toEqual([]);
  });

  it('no file under src/features takes the whole Services', () => {
    const files = sourceFiles('src/features');
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      wholeServices(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')).map(
        (line) => `${file}:${line}`,
      ),
    );
    expect(found).toEqual([]);
  });
});
