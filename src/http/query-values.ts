import { errors, QUERY_PROBLEMS } from '../errors.js';

/**
 * The console's list filters arrive as query text: comma lists, search text and date-times.
 * Each parser answers the value or throws a 400 naming the parameter (CONTRACT, Operator
 * console), rather than a schema's 422, so that every filter value is judged the same way.
 */

/** Shown in a detail: a value as JSON text, cut short, so a long or odd value stays readable. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

/** `a,b, c` as its non-empty, trimmed values; undefined when the parameter is absent. */
export function commaList(
  name: string,
  text: string | undefined,
  most: number,
): string[] | undefined {
  if (text === undefined) return undefined;
  const values = text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (values.length === 0) throw errors.badQuery(QUERY_PROBLEMS.noValue(name));
  if (values.length > most) {
    throw errors.badQuery(QUERY_PROBLEMS.tooManyValues(name, values.length, most));
  }
  return values;
}

/**
 * A comma list of some of `allowed`, matched without regard to case and answered as
 * `allowed` spells them.
 */
export function choices<T extends string>(
  name: string,
  text: string | undefined,
  allowed: readonly T[],
): T[] | undefined {
  const values = commaList(name, text, allowed.length * 4);
  return values?.map((value) => {
    const found = allowed.find((choice) => choice.toLowerCase() === value.toLowerCase());
    if (found === undefined) {
      throw errors.badQuery(QUERY_PROBLEMS.notOneOf(name, quoted(value), allowed));
    }
    return found;
  });
}

/** Text of at most `most` characters, counted as code points. */
export function boundedText(
  name: string,
  text: string | undefined,
  most: number,
): string | undefined {
  if (text === undefined) return undefined;
  const length = [...text].length;
  if (length > most) throw errors.badQuery(QUERY_PROBLEMS.tooLong(name, length, most));
  return text;
}

// RFC 3339's date-time (seconds and fraction optional): the zone is required, since a time
// without one would be read in whatever zone the server runs in.
const DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** An ISO 8601 date-time with a zone, as epoch milliseconds. */
export function dateTime(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  const ms = DATE_TIME.test(trimmed) ? Date.parse(trimmed.replace(' ', 'T')) : Number.NaN;
  if (Number.isNaN(ms) || !isCalendarDate(trimmed)) {
    throw errors.badQuery(QUERY_PROBLEMS.notDateTime(name));
  }
  return ms;
}

/** Date.parse rolls `02-30` over into March; a day the month lacks is refused instead. */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
}
