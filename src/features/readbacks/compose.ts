import { HttpError } from '../../errors.js';
import type {
  CommittedEntry,
  ReadbackContext,
  ReadbackEntry,
  SourceOutcome,
} from './catalog/readback-types.js';
import { InvalidReadbackData, readbackErrors } from './readback-errors.js';
import type { CommittedDocument } from './readback-files.js';
import { redactDocument } from './redaction.js';

/** Thrown by a computation whose caller stopped waiting; never reaches a response. */
export class SourceTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Runs `work` with a signal that aborts after `timeoutMs` (or with `parent`); rejects with a
 * SourceTimeout at the deadline even when `work` ignores its signal.
 */
export function withTimeout<T>(
  timeoutMs: number,
  parent: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, parent]);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new SourceTimeout(timeoutMs));
      reject(new SourceTimeout(timeoutMs));
    }, timeoutMs);
  });
  return Promise.race([work(signal), deadline]).finally(() => clearTimeout(timer));
}

/** Another readback as a source: a live computation, or a committed file as it is now. */
export async function resolveSource(
  ctx: ReadbackContext,
  catalog: ReadonlyMap<string, ReadbackEntry>,
  name: string,
  signal: AbortSignal,
): Promise<SourceOutcome> {
  const entry = catalog.get(name);
  if (entry?.kind === 'live') {
    try {
      const document = await entry.compute({ ...ctx, signal });
      return { readback: name, status: 'present', document };
    } catch (error) {
      if (error instanceof SourceTimeout) throw error;
      if (error instanceof HttpError && error.statusCode === 404) {
        return { readback: name, status: 'missing' };
      }
      const invalid = error instanceof InvalidReadbackData || error instanceof HttpError;
      return { readback: name, status: invalid ? 'invalid' : 'error' };
    }
  }
  const outcome = ctx.files.load(name);
  if (outcome.status === 'present') {
    return { readback: name, status: 'present', document: outcome.committed.document };
  }
  return { readback: name, status: outcome.status };
}

/** The committed input of a live readback, or undefined when absent; invalid throws (500). */
export function optionalInput(ctx: ReadbackContext, name: string): CommittedDocument | undefined {
  const outcome = ctx.files.load(name);
  if (outcome.status === 'invalid') throw new InvalidReadbackData(name, outcome.reason);
  return outcome.status === 'present' ? outcome.committed : undefined;
}

/** The committed input a readback cannot do without: absent is the row's 404. */
export function requiredInput(ctx: ReadbackContext, name: string): CommittedDocument {
  const committed = optionalInput(ctx, name);
  if (!committed) throw readbackErrors.notFound(name);
  return committed;
}

/**
 * A composed committed readback (spec: delivery-closure-workbench "aggregates ...",
 * reboot-auto-recovery-slo-scorecard "also merged with ..."): the base document with each
 * source under `composed_sources.<role>`, marked present, missing or invalid, so one absent
 * source never fails the whole response. Pieces are redacted one by one: a committed piece's
 * redaction is cached with its version, so a large base is not walked again per request.
 * A live source runs under the overlay timeout.
 */
export async function composeCommitted(
  ctx: ReadbackContext,
  entry: CommittedEntry,
  base: CommittedDocument,
): Promise<Record<string, unknown>> {
  const sources = await Promise.all(
    (entry.sources ?? []).map(async ({ role, readback, live }) => {
      if (!live) {
        const committed = ctx.files.load(readback);
        const document =
          committed.status === 'present' ? committed.committed.redacted().document : undefined;
        return [role, { readback, status: committed.status, document }] as const;
      }
      let outcome: SourceOutcome;
      try {
        outcome = await withTimeout(ctx.settings.overlayTimeoutMs, ctx.signal, (signal) =>
          ctx.readback(readback, signal),
        );
      } catch (error) {
        if (!(error instanceof SourceTimeout)) throw error;
        return [role, { readback, status: 'timeout' }] as const;
      }
      const document = outcome.document ? redactDocument(outcome.document) : undefined;
      return [role, { readback, status: outcome.status, document }] as const;
    }),
  );
  const missing = sources.filter(([, source]) => source.status !== 'present');
  return {
    ...base.redacted().document,
    composed_sources: Object.fromEntries(sources),
    composed_sources_summary: {
      total: sources.length,
      present: sources.length - missing.length,
      not_present: missing.map(([role, source]) => ({ role, status: source.status })),
    },
  };
}
