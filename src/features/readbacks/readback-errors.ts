import { errors } from '../../errors.js';

/**
 * CONTRACT, Readbacks: the two fixed details of E-SNAP. The 500 names the readback and nothing
 * else, so a broken file never leaks its path or content through the response.
 */
export const readbackErrors = {
  notFound: (name: string) => errors.readbackNotFound(name),
  invalid: (name: string) => errors.readbackInvalid(name),
} as const;

/** A committed document that exists but cannot be served; `reason` goes to the log only. */
export class InvalidReadbackData extends Error {
  constructor(
    readonly readback: string,
    readonly reason: string,
  ) {
    super(`${readback}: ${reason}`);
    this.name = 'InvalidReadbackData';
  }
}
