import path from 'node:path';
import { REPO_ROOT } from './source-files.js';

/** Where test/setup/build-service.ts bundles the entry points for a run. */
export const BUNDLE_DIR = path.join(REPO_ROOT, 'node_modules/.cache/service-under-test');

export const SERVICE_ENTRIES = ['server', 'consumer'] as const;

/**
 * The arguments after `node` that start `src/<name>.ts` as built for this run: the service
 * as `npm start` runs it, without tsx compiling it again in every process a suite starts.
 */
export function serviceEntry(name: (typeof SERVICE_ENTRIES)[number]): string[] {
  return ['--enable-source-maps', path.join(BUNDLE_DIR, `${name}.mjs`)];
}
