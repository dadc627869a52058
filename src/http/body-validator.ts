import { Ajv } from 'ajv';
import type { TSchema } from 'typebox';
import { errors } from '../errors.js';
import { describeValidationIssue } from './error-handler.js';

const ajv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false });

/**
 * For bodies whose shape is chosen at run time (a flat alert or an Alertmanager batch):
 * validates like a route schema would, and throws the same 422.
 */
export function bodyValidator<T>(schema: TSchema): (body: unknown) => T {
  const validate = ajv.compile(schema);
  return (body) => {
    if (validate(body)) return body as T;
    const issue = validate.errors?.[0];
    throw errors.validation(issue ? describeValidationIssue('body', issue) : 'body is invalid');
  };
}
