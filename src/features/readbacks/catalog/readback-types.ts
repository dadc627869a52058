import type { TSchema } from 'typebox';
import type { Services } from '../../../services.js';
import type { AlertTypeRule } from '../../intake/alert-type-rules.js';
import type { Playbook } from '../../repair/playbooks.js';
import type { ProbeCache } from '../probes.js';
import type { PublicTerms } from '../public-terms.js';
import type { ReadbackFiles } from '../readback-files.js';

/**
 * The four readback lists of the spec (Endpoints): committed and redacted, committed RAW,
 * live or composed, POST. Every path is one entry of the catalog; readback-routes.ts registers
 * them all in one loop.
 */
export type ReadbackKind = 'committed' | 'raw' | 'live' | 'post';

/** One part of a composed readback: another readback (committed or live) under a role name. */
export interface ComposeSource {
  role: string;
  readback: string;
  /** A live readback, computed under the overlay timeout; otherwise a committed file. */
  live?: boolean;
}

interface EntryBase {
  /** The path under `/agents`, which is also the committed file's name. */
  name: string;
  summary: string;
}

export interface CommittedEntry extends EntryBase {
  kind: 'committed';
  /** Composed readbacks (spec: "aggregates ...", "also merged with ..."). */
  sources?: readonly ComposeSource[];
}

export interface RawEntry extends EntryBase {
  kind: 'raw';
}

export interface LiveEntry extends EntryBase {
  kind: 'live';
  /** Committed documents the computation reads (optional unless `errors` has 404). */
  inputs: readonly string[];
  /** The statuses the spec's row names besides 200. */
  errors: readonly (404 | 500)[];
  /** spec: the runtime control "then passed through a public-terms redaction". */
  publicTerms?: boolean;
  compute(ctx: ReadbackContext): Promise<Record<string, unknown>>;
}

export interface PostEntry extends EntryBase {
  kind: 'post';
  inputs: readonly string[];
  /** The statuses the spec's row names besides 200. */
  errors: readonly (404 | 422 | 500)[];
  /** Request body schema; absent for the writers, which take no body (spec table: "none"). */
  body?: TSchema;
  handle(ctx: ReadbackContext, body: unknown): Promise<Record<string, unknown>>;
}

export type ReadbackEntry = CommittedEntry | RawEntry | LiveEntry | PostEntry;

/** A source of a composition or overlay as it was found; never fails the whole response. */
export type SourceOutcome =
  | { readback: string; status: 'present'; document: Record<string, unknown> }
  | { readback: string; status: 'missing' | 'invalid' | 'error'; document?: undefined };

export interface ReadbackSettings {
  overlayTimeoutMs: number;
  overlayMode: 'ready' | 'delegated';
  probeTimeoutMs: number;
}

/** What every computation may use; built once per request by readback-routes.ts. */
export interface ReadbackContext {
  services: Pick<Services, 'store' | 'stream' | 'chat' | 'config'>;
  files: ReadbackFiles;
  playbooks: readonly Playbook[];
  alertTypeRules: readonly AlertTypeRule[];
  publicTerms: PublicTerms;
  settings: ReadbackSettings;
  /** Aborted when whoever asked stops waiting (the overlay's timeout): probes end with it. */
  signal: AbortSignal;
  now(): number;
  /** Probe fetches shared by every reader for 30 s. */
  probes: ProbeCache;
  /** Every path of the catalog, so a reference to a readback can be checked. */
  readbackNames: ReadonlySet<string>;
  /** Another readback's unredacted document: a committed file, or a live computation. */
  readback(name: string, signal?: AbortSignal): Promise<SourceOutcome>;
}
