import fs from 'node:fs';
import { build } from 'esbuild';
import { BUNDLE_DIR, SERVICE_ENTRIES } from '../helpers/service-entry.js';

/**
 * Bundles the service's entry points once per run for the suites that start it as a process
 * of its own: one file of our code loads in half the CPU that tsx takes to compile and load
 * a few hundred. Packages stay external, resolved from node_modules as after `npm run build`;
 * the bundle sits inside the repository so that the files the service finds by walking up
 * from its own module (config/, dist-console/) are found from there too.
 */
export default async function buildService(): Promise<void> {
  fs.mkdirSync(BUNDLE_DIR, { recursive: true });
  const result = await build({
    entryPoints: SERVICE_ENTRIES.map((name) => `src/${name}.ts`),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    write: false,
    outdir: BUNDLE_DIR,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  // Renamed into place: a run started beside this one (a suite that runs vitest itself) may be
  // starting the service from the previous bundle at this moment.
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
}
