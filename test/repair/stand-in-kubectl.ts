import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A stand-in `kubectl`: appends its arguments (one per line, then a blank line) to a file,
 * fails on an argument `fail`, sleeps on `slow`.
 */
export function writeStandInKubectl(directory: string): {
  binary: string;
  calls: () => string[][];
} {
  const log = join(directory, 'calls.log');
  writeFileSync(log, '');
  const binary = join(directory, 'kubectl');
  writeFileSync(
    binary,
    `#!/bin/sh
for arg in "$@"; do printf '%s\\n' "$arg" >> '${log}'; done
printf '\\n' >> '${log}'
for arg in "$@"; do
  if [ "$arg" = fail ]; then echo "error: step failed on purpose" >&2; exit 1; fi
  if [ "$arg" = slow ]; then exec sleep 5; fi
done
echo "ok: $*"
`,
  );
  chmodSync(binary, 0o755);
  const calls = () =>
    readFileSync(log, 'utf8')
      .split('\n\n')
      .filter((call) => call !== '')
      .map((call) => call.split('\n').filter((line) => line !== ''));
  return { binary, calls };
}
