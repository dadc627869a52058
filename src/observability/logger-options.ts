import type { LoggerOptions } from 'pino';

/** Headers that carry secrets; pino replaces them wherever a request is logged. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-signature-256"]',
  'req.headers["errtracker-hook-signature"]',
  'req.headers["x-operator-key"]',
  'req.headers["x-telegram-bot-api-secret-token"]',
];

/**
 * README, Configuration (LOG_LEVEL); docs/deployment.md, The first lines after the start: readable lines (pino-pretty) for a person at a terminal; one JSON object a line
 * for everything else (containers, log shippers, tests), as pino writes by default.
 */
export function loggerOptions(level: string, terminal: boolean): LoggerOptions {
  const options: LoggerOptions = { level, redact: REDACTED_PATHS };
  if (!terminal) return options;
  return {
    ...options,
    transport: {
      target: 'pino-pretty',
      options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' },
    },
  };
}
