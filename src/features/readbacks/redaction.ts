/**
 * The topology redaction every non-RAW readback passes through (spec, Endpoints: "Unless
 * marked RAW, a readback response passes through a step that hides private-network topology
 * details"; CONTRACT, Readbacks: the rules). Pure: string keys and values at any depth.
 */
import net from 'node:net';
import { setOwn } from '../../support/own-value.js';

export const REDACTED_IP = '[redacted-ip]';
export const REDACTED_HOST = '[redacted-host]';
export const REDACTED_MAC = '[redacted-mac]';

// Colon or hyphen separated (one separator throughout), or Cisco's dotted groups of four.
const MAC =
  /(?<![\w:.-])(?:[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![\w:.-])/g;

// Not inside a longer dotted number (a fifth octet, a version string): whole tokens only.
const IPV4 =
  /(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:\/\d{1,2}(?!\d)|:\d{1,5}(?!\d))?(?!\.?\d)/g;

// A candidate is checked with net.isIPv6, so times such as 12:30:45 are never touched.
const IPV6_BRACKETED = /\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\](?::\d{1,5}(?!\d))?/g;
const IPV6 =
  /(?<![\w:.])((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%[\w.-]+)?)(?:\/\d{1,3}(?!\d))?(?![\w:])/g;

/** CONTRACT, Readbacks: the private name suffixes (`.cluster.local` ends in `.local`). */
export const PRIVATE_HOST_SUFFIXES = [
  'internal',
  'local',
  'lan',
  'home.arpa',
  'corp',
  'intranet',
  'cluster.local',
] as const;

// At least one label before the suffix, the whole name only: `a.local.example.com` is public.
const HOST =
  /(?<![\w.-])(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)+(?:internal|local|lan|home\.arpa|corp|intranet)(?![\w-]|\.[\w-])/gi;
const HOST_HINT = /\.(?:internal|local|lan|arpa|corp|intranet)/i;

/** 10/8, 172.16/12, 192.168/16, 127/8, 169.254/16, 100.64/10 (CONTRACT, Readbacks). */
export function isPrivateIPv4(octets: readonly number[]): boolean {
  const [a = -1, b = -1] = octets;
  return (
    a === 10 ||
    a === 127 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

/** The eight 16-bit groups of a valid IPv6 address (zone id removed), or null. */
function ipv6Groups(text: string): number[] | null {
  const address = text.split('%')[0] ?? '';
  if (!net.isIPv6(address)) return null;
  let body = address;
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups. Octets are at most three
  // digits (isIPv6 checked them); `\d+` would rescan a digit run from each of its digits.
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(body);
  if (tail) {
    const [, a, b, c, d] = tail.map(Number) as number[];
    body = `${body.slice(0, tail.index)}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const [head = '', rest] = body.split('::');
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group || '0', 16));
}

/** Loopback ::1, unique-local fc00::/7, link-local fe80::/10. */
export function isPrivateIPv6(text: string): boolean {
  const groups = ipv6Groups(text);
  if (!groups) return false;
  const first = groups[0] ?? 0;
  const loopback = groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1;
  return loopback || (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

/** One string with every private address, internal host name and MAC replaced. */
export function redactText(text: string): string {
  let out = text;
  if (out.length >= 11 && (out.includes(':') || out.includes('-') || out.includes('.'))) {
    out = out.replace(MAC, REDACTED_MAC);
  }
  if (out.includes('.')) {
    out = out.replace(IPV4, (match, a: string, b: string, c: string, d: string) => {
      const octets = [a, b, c, d].map(Number);
      if (octets.some((octet) => octet > 255)) return match;
      return isPrivateIPv4(octets) ? REDACTED_IP : match;
    });
    if (HOST_HINT.test(out)) out = out.replace(HOST, REDACTED_HOST);
  }
  if (out.includes(':')) {
    out = out.replace(IPV6_BRACKETED, (match, inner: string) =>
      isPrivateIPv6(inner) ? REDACTED_IP : match,
    );
    out = out.replace(IPV6, (match, address: string) =>
      isPrivateIPv6(address) ? REDACTED_IP : match,
    );
  }
  return out;
}

/**
 * The whole document, keys included. Two keys that redact to the same text would collide
 * and one value would be lost, so later ones get `#2`, `#3`: nothing is dropped silently.
 */
export function redactDocument<T>(value: T): T {
  return redactValue(value) as T;
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    let redactedKey = redactText(key);
    if (redactedKey !== key && Object.hasOwn(out, redactedKey)) {
      let n = 2;
      while (Object.hasOwn(out, `${redactedKey}#${n}`)) n += 1;
      redactedKey = `${redactedKey}#${n}`;
    }
    setOwn(out, redactedKey, redactValue(inner));
  }
  return out;
}
