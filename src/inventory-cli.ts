/**
 * `npm run inventory -- [root] [--out file]`: the package inventory for CI pipelines.
 * Prints the document (or writes it to --out) and exits 0 when the lock file is in sync,
 * 1 when drift needs action (action_required or blocked), 2 when no inventory could be made.
 * `--schema` prints the document's JSON Schema instead (how schemas/*.schema.json is written).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { inventorySchemaFile } from './features/inventory/inventory-schema.js';
import { readInventory } from './features/inventory/read-inventory.js';

const EXIT = { inSync: 0, driftNeedsAction: 1, error: 2 } as const;

const USAGE = 'usage: npm run inventory -- [root] [--out file] [--schema]';

function run(argv: string[]): number {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return EXIT.error;
  }
  const { root, out, schema } = parsed;
  if (schema) {
    process.stdout.write(`${JSON.stringify(inventorySchemaFile(), null, 2)}\n`);
    return EXIT.inSync;
  }
  let outcome: ReturnType<typeof readInventory>;
  try {
    outcome = readInventory(root);
  } catch (error) {
    // a crash must not look like exit 1 (drift) to a pipeline
    process.stderr.write(
      `inventory: unexpected error: ${(error as Error).stack ?? String(error)}\n`,
    );
    return EXIT.error;
  }
  if (!outcome.ok) {
    process.stderr.write(`inventory: ${outcome.detail}\n`);
    return EXIT.error;
  }
  const { document } = outcome;
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (out) {
    try {
      fs.writeFileSync(out, text);
    } catch (error) {
      process.stderr.write(`inventory: cannot write ${out}: ${(error as Error).message}\n`);
      return EXIT.error;
    }
  } else {
    process.stdout.write(text);
  }
  const status = document.lockfile_summary.status;
  const findings = document.drift_findings.length;
  process.stderr.write(
    `inventory: ${document.lockfile_summary.lockfile_ref} ${status}, ${findings} finding(s), ` +
      `current task ${document.program_status.current_task_id}${out ? ` (written to ${out})` : ''}\n`,
  );
  return status === 'in_sync' ? EXIT.inSync : EXIT.driftNeedsAction;
}

function parseCommandLine(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string' }, schema: { type: 'boolean', default: false } },
  });
  if (positionals.length > 1)
    throw new Error(`expected at most one root, got ${positionals.length}`);
  // `npm run` starts scripts in the package directory; INIT_CWD is where the user typed the command
  const base = process.env.INIT_CWD ?? process.cwd();
  // CONTRACT: INVENTORY_ROOT defaults to the working directory; a positional root wins over both
  const root = path.resolve(base, positionals[0] ?? process.env.INVENTORY_ROOT ?? '.');
  const out = values.out === undefined ? undefined : path.resolve(base, values.out);
  return { root, out, schema: values.schema === true };
}

process.exitCode = run(process.argv.slice(2));
