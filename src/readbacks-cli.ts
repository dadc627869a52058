/**
 * `npm run readbacks -- list|validate|commit <name> <file> [--dir <READBACK_DIR>]`: see
 * features/readbacks/readbacks-command.ts. Exit 0 ok, 1 invalid or refused, 2 usage.
 */
import { runReadbacksCommand } from './features/readbacks/readbacks-command.js';

process.exitCode = runReadbacksCommand(process.argv.slice(2), process.env, process.cwd(), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
