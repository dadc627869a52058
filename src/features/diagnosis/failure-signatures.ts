import { CODE_SIGNATURES } from './failure-signatures-code.js';
import { DATABASE_SIGNATURES } from './failure-signatures-database.js';
import { INPUT_SIGNATURES } from './failure-signatures-input.js';
import { NETWORK_SIGNATURES } from './failure-signatures-network.js';
import { RUNTIME_SIGNATURES } from './failure-signatures-runtime.js';
import { UPSTREAM_SIGNATURES } from './failure-signatures-upstream.js';
import type { FailureSignature } from './signature-types.js';

/**
 * Every known failure signature. The best-scoring signature wins; on a tie the earlier one
 * does, so infrastructure families (database, network) come before code-level ones: their
 * messages are the more specific diagnosis when a generic wrapper type is all the code shows.
 */
export const FAILURE_SIGNATURES: readonly FailureSignature[] = [
  ...DATABASE_SIGNATURES,
  ...UPSTREAM_SIGNATURES,
  ...NETWORK_SIGNATURES,
  ...RUNTIME_SIGNATURES,
  ...INPUT_SIGNATURES,
  ...CODE_SIGNATURES,
];
