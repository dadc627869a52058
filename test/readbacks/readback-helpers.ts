import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../../src/ports/clock.js';
import { tempDir } from '../helpers/backends.js';
import { type Backend, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { atFileEnd } from '../helpers/file-end.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples/readbacks');
export const AGENTS = '/api/v1/agents';

export function readbackDir(): string {
  const dir = tempDir('readbacks-');
  atFileEnd(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function writeDoc(dir: string, name: string, value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), text);
}

export function removeDoc(dir: string, name: string): void {
  fs.rmSync(path.join(dir, `${name}.json`), { force: true });
}

/** The committed examples, with the public probe hosts pointed at a local peer. */
export function copyExamples(dir: string, probeBase?: string): void {
  for (const file of fs.readdirSync(EXAMPLES_DIR)) {
    let text = fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8');
    if (probeBase) text = text.replace(/https:\/\/(api|registry)\.example\.com/g, probeBase);
    fs.writeFileSync(path.join(dir, file), text);
  }
}

export async function readbackApp(options: {
  dir: string;
  env?: Record<string, string>;
  backend?: Backend;
  clock?: Clock;
}): Promise<TestApp> {
  return buildTestApp({
    backend: options.backend,
    clock: options.clock,
    env: { READBACK_DIR: options.dir, ...options.env },
  });
}
