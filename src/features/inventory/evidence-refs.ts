const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `file#$.a['b/c'].d`: a JSONPath into a JSON or YAML file; odd keys are bracketed. */
export function jsonPathRef(file: string, ...keys: string[]): string {
  const path = keys
    .map((key) =>
      IDENTIFIER.test(key)
        ? `.${key}`
        : `['${key.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}']`,
    )
    .join('');
  return `${file}#$${path}`;
}

/** `file:line` (1-based), for yarn.lock whose keys are long descriptor lists. */
export function lineRef(file: string, line: number): string {
  return `${file}:${line}`;
}

/** `packages/a` + `package.json` → `packages/a/package.json`; the root stays bare. */
export function fileIn(dir: string, file: string): string {
  return dir === '.' ? file : `${dir}/${file}`;
}
