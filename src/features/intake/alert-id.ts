import { DEFAULT_TIME_ZONE, zonedParts } from '../../support/zoned-time.js';

/**
 * Spec, `POST /webhooks/alerts`: "An alert id `alert-<YYYYMMDDHHMMSS>` is generated in
 * Asia/Taipei time".
 */
export function alertIdAt(epochMs: number, timeZone: string = DEFAULT_TIME_ZONE): string {
  const p = zonedParts(epochMs, timeZone);
  return `alert-${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}`;
}
