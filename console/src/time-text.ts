/** Times as the console shows them; free of the DOM so that Node can test them. */
import { isolate } from './outside-text.js';

/** How long ago `iso` was at `now`, shortened for a card: `45s`, `12m`, `5h 3m`, `3d`. */
export function age(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  return shortSpan((now - Date.parse(iso)) / 1000);
}

/** What is left before `iso` (a heartbeat's `expires_at`): `4m left`, or `expired 2m ago`. */
export function timeLeft(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  const seconds = (Date.parse(iso) - now) / 1000;
  return seconds > 0 ? `${shortSpan(seconds)} left` : `expired ${shortSpan(-seconds)} ago`;
}

function shortSpan(span: number): string {
  const seconds = Math.max(0, Math.round(span));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d`;
}

/** A moment in the reader's locale and time zone. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  // A stamp that is no date is shown as sent: outside text, so isolated.
  return Number.isNaN(date.getTime()) ? isolate(iso) : date.toLocaleString();
}

/** A span of seconds (a gauge's value): `42 s`, `3 min 5 s`, `2 h 10 min`. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
