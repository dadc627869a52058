import { Type } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../error-codes.js';

/**
 * The schema of every error answer, `{"detail", "code"}`, declared by each route for its
 * error statuses: a route's serializer drops what its schema lacks, so one shape for all.
 */
export const ErrorBody = Type.Object({
  detail: Type.String(),
  code: Type.Unsafe<ErrorCode>({
    type: 'string',
    enum: Object.keys(ERROR_STATUS),
    description: 'Stable: clients decide by it; the detail is for people.',
  }),
});
