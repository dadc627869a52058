import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import {
  compileSchemaFile,
  documentFile,
  parseCommitted,
  READBACK_NAME,
  schemaFile,
} from './readback-files.js';

/**
 * Committing a new version of a readback document (docs/api.md, Readbacks: by atomic write (temp file and
 * rename) while keeping earlier versions in a history folder, so a reader never sees a
 * half-written file"). The new bytes are checked as the service would check them (JSON
 * object, the deployment's schema) before anything is written.
 */
export const HISTORY_DIR = 'history';

export interface CommitResult {
  file: string;
  sha256: string;
  /** Where the replaced version was kept; null for a first commit. */
  previous: string | null;
}

/** The service's own check of one document's bytes; returns the reason it is invalid. */
export function checkDocument(dir: string, name: string, raw: Buffer): string | null {
  let validate: ValidateFunction | undefined;
  const schemaPath = schemaFile(dir, name);
  if (fs.existsSync(schemaPath)) {
    try {
      validate = compileSchemaFile(schemaPath);
    } catch (error) {
      return `its schema file is unusable: ${(error as Error).message}`;
    }
  }
  const parsed = parseCommitted(raw, validate);
  return 'reason' in parsed ? parsed.reason : null;
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

export function commitReadback(
  dir: string,
  name: string,
  raw: Buffer,
  now = new Date(),
): CommitResult {
  if (!READBACK_NAME.test(name)) throw new Error(`"${name}" is not a readback name`);
  const problem = checkDocument(dir, name, raw);
  if (problem) throw new Error(`${name}: ${problem}; nothing was committed`);
  fs.mkdirSync(dir, { recursive: true });
  const target = documentFile(dir, name);
  const sha256 = crypto.createHash('sha256').update(raw).digest('hex');
  let previous: string | null = null;
  if (fs.existsSync(target)) {
    const history = path.join(dir, HISTORY_DIR, name);
    fs.mkdirSync(history, { recursive: true });
    const old = fs.readFileSync(target);
    const oldSha = crypto.createHash('sha256').update(old).digest('hex');
    previous = path.join(history, `${stamp(now)}-${oldSha.slice(0, 12)}.json`);
    // Copied, not moved: the current version stays in place until the rename replaces it.
    fs.copyFileSync(target, previous);
  }
  const temp = path.join(
    dir,
    `.${name}.json.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const fd = fs.openSync(temp, 'wx');
    try {
      fs.writeFileSync(fd, raw);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // rename(2) replaces the directory entry in one step: readers see the old or the new file.
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  return { file: target, sha256, previous };
}
