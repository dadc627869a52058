import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
type LogArguments = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger, made into a real pino child only when the request logs. Request logging
 * is off, so most requests never log, and building a child per request (its bindings
 * serialized, its level set) cost 2-3 % of a webhook's CPU.
 */
class LazyRequestLogger {
  #made: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.#made?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }

  /** pino's, for code that treats the request's logger as a full pino logger. */
  isLevelEnabled(level: string): boolean {
    return (this.#logger as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(
      level,
    );
  }

  bindings(): Bindings {
    return (this.#logger as unknown as { bindings(): Bindings }).bindings();
  }

  fatal(...args: LogArguments) {
    this.#write('fatal', args);
  }
  error(...args: LogArguments) {
    this.#write('error', args);
  }
  warn(...args: LogArguments) {
    this.#write('warn', args);
  }
  info(...args: LogArguments) {
    this.#write('info', args);
  }
  debug(...args: LogArguments) {
    this.#write('debug', args);
  }
  trace(...args: LogArguments) {
    this.#write('trace', args);
  }
  silent(..._args: LogArguments) {}

  #write(level: Exclude<Level, 'silent'>, args: LogArguments) {
    const logger = this.#logger;
    (logger[level] as (...rest: LogArguments) => void).apply(logger, args);
  }
}

/** For `app.setChildLoggerFactory`. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
