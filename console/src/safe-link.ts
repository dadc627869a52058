/**
 * Which links from outside the console may be followed. A runbook or generator URL is whatever
 * an alert's sender wrote (CONTRACT, Incident lifecycle: returned as stored), so only an
 * absolute http: or https: URL becomes a link; `javascript:`, `data:`, relative paths and
 * anything unparseable stay plain text.
 */
export function httpUrl(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  // The parsed form is the one used: the parser has already dropped tabs and newlines that a
  // browser would also drop, so "java\tscript:" is judged as the browser would read it.
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}
