import { errors } from '../errors.js';

/**
 * A dependency behind a port (Redis) that is not connected or did not answer in time: the
 * request may be retried once it is back. Adapters throw it with the driver's error as the
 * cause; the error handler answers 503 with `Retry-After` (CONTRACT, Under races, crashes
 * and abuse: dependencies that hang).
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: string,
    options?: ErrorOptions,
  ) {
    super(errors.dependencyUnavailable(dependency).detail, options);
    this.name = 'DependencyUnavailableError';
  }
}
