/**
 * CONTRACT, Configuration: `DISPLAY_TZ` (default `Asia/Taipei`) is the zone of human-facing
 * times. An unknown zone makes Intl throw a RangeError; the config check rejects such zones
 * at start.
 */
export const DEFAULT_TIME_ZONE = 'Asia/Taipei';

export interface ZonedParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  /** `+08:00`, `-03:30`, `+00:00`. */
  offset: string;
}

/** ISO 8601 with the zone's own offset, e.g. `2024-03-01T08:00:00+08:00`; seconds precision. */
export function formatInZone(epochMs: number, timeZone: string = DEFAULT_TIME_ZONE): string {
  const p = zonedParts(epochMs, timeZone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${p.offset}`;
}

// Building a DateTimeFormat is far slower than using one, so one is kept per zone.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      // h23, not hour12: false, which some ICU versions render as `24` at midnight.
      hourCycle: 'h23',
      timeZoneName: 'longOffset',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

// Alerts arrive thousands a second and share the second they fall in: remember the last one.
let lastSecond: { second: number; timeZone: string; parts: ZonedParts } | undefined;

/** The wall-clock fields of an instant in a zone. */
export function zonedParts(epochMs: number, timeZone: string): ZonedParts {
  const second = Math.floor(epochMs / 1000);
  if (lastSecond && lastSecond.second === second && lastSecond.timeZone === timeZone) {
    return lastSecond.parts;
  }
  const parts = computeZonedParts(epochMs, timeZone);
  lastSecond = { second, timeZone, parts };
  return parts;
}

function computeZonedParts(epochMs: number, timeZone: string): ZonedParts {
  const found: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatterFor(timeZone).formatToParts(epochMs)) found[part.type] = part.value;
  const hour = found.hour === '24' ? '00' : found.hour;
  return {
    year: (found.year ?? '').padStart(4, '0'),
    month: found.month ?? '',
    day: found.day ?? '',
    hour: hour ?? '',
    minute: found.minute ?? '',
    second: found.second ?? '',
    offset: isoOffset(found.timeZoneName ?? ''),
  };
}

/** `GMT+08:00` → `+08:00`; plain `GMT` (UTC and zones at offset zero) → `+00:00`. */
function isoOffset(longOffset: string): string {
  const match = /^GMT([+-])(\d{1,2})(?::(\d{2}))?/.exec(longOffset);
  if (match === null) return '+00:00';
  const [, sign, hours = '0', minutes = '00'] = match;
  return `${sign}${hours.padStart(2, '0')}:${minutes}`;
}
