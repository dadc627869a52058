import { Ajv } from 'ajv';
import type { Static, TSchema } from 'typebox';
import type { JobHandler } from '../ports/jobs.js';

const ajv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false });

/**
 * A job worker that takes its payload only once it matches the job's schema. A payload that
 * does not will not match on a retry either, so it is logged and dropped, never run with a
 * guess at its fields.
 */
export function typedJob<S extends TSchema>(
  name: string,
  schema: S,
  log: { error(fields: object, message: string): void },
  work: (payload: Static<S>) => Promise<void>,
): JobHandler {
  const valid = ajv.compile<Static<S>>(schema);
  return async (payload) => {
    if (!valid(payload)) {
      log.error({ payload, problem: ajv.errorsText(valid.errors) }, `${name}: malformed payload`);
      return;
    }
    await work(payload);
  };
}
