/**
 * The `npm run readbacks` command (src/readbacks-cli.ts):
 * `npm run readbacks -- list|validate|commit <name> <file> [--dir <READBACK_DIR>]`
 * list: every committed document the catalog reads, present, missing or invalid.
 * validate: checks every present document as the service would; exit 1 when any is invalid.
 * commit: checks <file> and installs it as `<dir>/<name>.json` by temp file and rename,
 * keeping the replaced version under `<dir>/history/<name>/`; exit 1 when it is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  committedDocumentNames,
  READBACK_CATALOG,
  requiredDocumentNames,
} from './catalog/readback-catalog.js';
import { commitReadback } from './commit-readback.js';
import { type DocumentState, documentState } from './readback-states.js';

/** Where the command writes; the CLI passes process streams, tests collect the text. */
export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = 'usage: npm run readbacks -- list | validate | commit <name> <file> [--dir <dir>]';
const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

function usedBy(name: string): string {
  const entry = READBACK_CATALOG.find((e) => e.name === name);
  if (entry) return entry.kind;
  return 'input';
}

function list(dir: string, out: CommandOutput): number {
  const required = requiredDocumentNames();
  const rows = committedDocumentNames().map((name) => ({ name, ...documentState(dir, name) }));
  for (const row of rows) {
    const need = required.has(row.name) ? 'required' : 'optional';
    out.stdout(
      `${row.state.padEnd(8)} ${usedBy(row.name).padEnd(9)} ${need.padEnd(8)} ${row.name}\n`,
    );
  }
  const count = (state: DocumentState) => rows.filter((row) => row.state === state).length;
  out.stderr(
    `readbacks in ${dir}: ${count('present')} present, ${count('missing')} missing, ${count('invalid')} invalid\n`,
  );
  return EXIT.ok;
}

function validate(dir: string, out: CommandOutput): number {
  const known = new Set(committedDocumentNames());
  const files = fs.existsSync(dir)
    ? fs.readdirSync(dir).filter((file) => file.endsWith('.json'))
    : [];
  let invalid = 0;
  for (const file of files.sort()) {
    const name = file.slice(0, -'.json'.length);
    const { state, reason } = documentState(dir, name);
    if (state === 'invalid') invalid += 1;
    const note = known.has(name) ? '' : ' (not read by any readback)';
    out.stdout(
      `${state === 'invalid' ? 'INVALID' : 'ok     '} ${name}${note}${reason ? `: ${reason}` : ''}\n`,
    );
  }
  const missing = [...requiredDocumentNames()].filter((name) => !files.includes(`${name}.json`));
  out.stderr(
    `${files.length} file(s) checked, ${invalid} invalid; ${missing.length} readback(s) would answer 404\n`,
  );
  return invalid > 0 ? EXIT.invalid : EXIT.ok;
}

function commit(dir: string, name: string, file: string, out: CommandOutput): number {
  if (!committedDocumentNames().includes(name)) {
    out.stderr(`readbacks: "${name}" is not a document any readback reads (see list)\n`);
    return EXIT.invalid;
  }
  try {
    const result = commitReadback(dir, name, fs.readFileSync(file));
    out.stderr(
      `committed ${name} (${result.sha256.slice(0, 12)})${result.previous ? `; previous kept as ${result.previous}` : ''}\n`,
    );
    return EXIT.ok;
  } catch (error) {
    out.stderr(`readbacks: ${(error as Error).message}\n`);
    return EXIT.invalid;
  }
}

export function runReadbacksCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: CommandOutput,
): number {
  let parsed: ReturnType<
    typeof parseArgs<{ options: { dir: { type: 'string' } }; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { dir: { type: 'string' } },
    });
  } catch (error) {
    out.stderr(`${(error as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  // `npm run` starts scripts in the package directory; INIT_CWD is where the user typed the command
  const base = env.INIT_CWD ?? cwd;
  const dir = path.resolve(base, parsed.values.dir ?? env.READBACK_DIR ?? './readbacks');
  const [command, name, file] = parsed.positionals;
  if (command === 'list' && !name) return list(dir, out);
  if (command === 'validate' && !name) return validate(dir, out);
  if (command === 'commit' && name && file && parsed.positionals.length === 3) {
    return commit(dir, name, path.resolve(base, file), out);
  }
  out.stderr(`${USAGE}\n`);
  return EXIT.usage;
}
