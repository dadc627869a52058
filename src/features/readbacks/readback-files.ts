import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { redactDocument } from './redaction.js';

/** What a response sends: the bytes and their ETag, computed once per committed version. */
export interface ServedBody {
  body: Buffer;
  etag: string;
}

export interface CommittedDocument {
  name: string;
  /** The file's own bytes; RAW readbacks send exactly these (spec, Endpoints: RAW). */
  raw: Buffer;
  document: Record<string, unknown>;
  /** sha256 hex of the raw bytes: the version a receipt or a composition refers to. */
  sha256: string;
  /** The redacted document and its bytes, made on first use and kept with this version. */
  redacted(): { document: Record<string, unknown> } & ServedBody;
  rawBody(): ServedBody;
}

export type LoadOutcome =
  | { status: 'present'; committed: CommittedDocument }
  | { status: 'missing' }
  | { status: 'invalid'; reason: string };

export interface ReadbackFiles {
  readonly dir: string;
  /** Reads `$READBACK_DIR/<name>.json` as it is now (CONTRACT: "read at request time"). */
  load(name: string): LoadOutcome;
}

export const READBACK_NAME = /^[a-z0-9][a-z0-9-]{0,127}$/;

export function documentFile(dir: string, name: string): string {
  return path.join(dir, `${name}.json`);
}

/** CONTRACT, Readbacks: `$READBACK_DIR/schemas/<readback-name>.schema.json`. */
export function schemaFile(dir: string, name: string): string {
  return path.join(dir, 'schemas', `${name}.schema.json`);
}

export function etagOf(body: Buffer | string): string {
  return `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Compiles a committed JSON Schema file; one Ajv each, so two files reusing an `$id` never collide. */
export function compileSchemaFile(file: string): ValidateFunction {
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(fs.readFileSync(file, 'utf8')) as object);
}

function versionKey(stat: fs.Stats | undefined): string {
  return stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : '-';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses and checks one version of a document: a JSON object that passes the deployment's
 * schema, if one is committed. Returns the reason it is invalid, or the document.
 */
export function parseCommitted(
  raw: Buffer,
  validate: ValidateFunction | undefined,
): { document: Record<string, unknown> } | { reason: string } {
  let document: unknown;
  try {
    document = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    return { reason: `not valid JSON: ${(error as Error).message}` };
  }
  if (!isObject(document)) return { reason: 'not a JSON object' };
  if (validate && !validate(document)) {
    const issue = validate.errors?.[0];
    return { reason: `fails its schema: ${issue?.instancePath || '/'} ${issue?.message ?? ''}` };
  }
  return { document };
}

function committedDocument(name: string, raw: Buffer, document: Record<string, unknown>) {
  let redacted: ({ document: Record<string, unknown> } & ServedBody) | undefined;
  let rawBody: ServedBody | undefined;
  return {
    name,
    raw,
    document,
    sha256: crypto.createHash('sha256').update(raw).digest('hex'),
    redacted() {
      if (!redacted) {
        const clean = redactDocument(document);
        const body = Buffer.from(JSON.stringify(clean));
        redacted = { document: clean, body, etag: etagOf(body) };
      }
      return redacted;
    },
    rawBody() {
      rawBody ??= { body: raw, etag: etagOf(raw) };
      return rawBody;
    },
  } satisfies CommittedDocument;
}

/**
 * Committed documents, cached by the version of the file and of its schema file (mtime, size
 * and inode: a commit renames a new file into place, so the inode changes even within one
 * mtime tick). A request costs two stat calls when nothing changed; parsing, validation and
 * redaction happen once per version.
 */
export function createReadbackFiles(dir: string): ReadbackFiles {
  const documents = new Map<string, { key: string; outcome: LoadOutcome }>();
  const schemas = new Map<string, { key: string; validate?: ValidateFunction; error?: string }>();

  function validatorFor(
    name: string,
    stat: fs.Stats | undefined,
  ): { validate?: ValidateFunction; error?: string } {
    if (!stat) return {};
    const key = versionKey(stat);
    const cached = schemas.get(name);
    if (cached?.key === key) return cached;
    let entry: { key: string; validate?: ValidateFunction; error?: string };
    try {
      entry = { key, validate: compileSchemaFile(schemaFile(dir, name)) };
    } catch (error) {
      entry = { key, error: `its schema file is unusable: ${(error as Error).message}` };
    }
    schemas.set(name, entry);
    return entry;
  }

  function read(name: string, schemaStat: fs.Stats | undefined): LoadOutcome {
    let raw: Buffer;
    try {
      raw = fs.readFileSync(documentFile(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
      return { status: 'invalid', reason: `cannot be read: ${(error as Error).message}` };
    }
    const schema = validatorFor(name, schemaStat);
    if (schema.error) return { status: 'invalid', reason: schema.error };
    const parsed = parseCommitted(raw, schema.validate);
    if ('reason' in parsed) return { status: 'invalid', reason: parsed.reason };
    return { status: 'present', committed: committedDocument(name, raw, parsed.document) };
  }

  return {
    dir,
    load(name) {
      const stat = fs.statSync(documentFile(dir, name), { throwIfNoEntry: false });
      if (!stat) {
        documents.delete(name);
        return { status: 'missing' };
      }
      const schemaStat = fs.statSync(schemaFile(dir, name), { throwIfNoEntry: false });
      const key = `${versionKey(stat)}|${versionKey(schemaStat)}`;
      const cached = documents.get(name);
      if (cached?.key === key) return cached.outcome;
      const outcome = read(name, schemaStat);
      documents.set(name, { key, outcome });
      return outcome;
    },
  };
}
