import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactDocument, redactText } from '../../src/features/readbacks/redaction.js';

describe('redactText', () => {
  it.each([
    // CONTRACT, Readbacks: the private IPv4 ranges, with /prefix or :port
    ['10.0.0.5', '[redacted-ip]'],
    ['http://10.20.30.40:8080/health', 'http://[redacted-ip]/health'],
    ['172.16.0.0/12 and 172.31.255.255', '[redacted-ip] and [redacted-ip]'],
    ['192.168.1.1.', '[redacted-ip].'],
    ['127.0.0.1:3000', '[redacted-ip]'],
    ['169.254.169.254', '[redacted-ip]'],
    ['100.64.0.1 100.127.255.254', '[redacted-ip] [redacted-ip]'],
    // IPv6 loopback, unique-local, link-local
    ['::1', '[redacted-ip]'],
    ['[::1]:8443', '[redacted-ip]'],
    ['fd12:3456:789a::1/64', '[redacted-ip]'],
    ['fc00::', '[redacted-ip]'],
    ['fe80::1ff:fe23:4567:890a%eth0', '[redacted-ip]'],
    ['::ffff:10.0.0.1', '::ffff:[redacted-ip]'],
    // private host names
    ['db.corp', '[redacted-host]'],
    ['svc.ns.svc.cluster.local:443', '[redacted-host]:443'],
    ['git@git.internal:platform/api.git', 'git@[redacted-host]:platform/api.git'],
    ['NAS.HOME.ARPA', '[redacted-host]'],
    ['printer.lan and wiki.intranet', '[redacted-host] and [redacted-host]'],
    ['mac-mini.local', '[redacted-host]'],
    // MAC addresses
    ['00:1A:2b:3c:4d:5e', '[redacted-mac]'],
    ['00-1a-2b-3c-4d-5e', '[redacted-mac]'],
    ['001a.2b3c.4d5e', '[redacted-mac]'],
  ])('%s → %s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1:53',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '11.0.0.1/8',
    '10.0.0.5.6',
    '2001:db8::1',
    '2606:4700::1111',
    '::',
    'api.example.com',
    'a.local.example.com',
    'foo.localhost',
    'local',
    '.local',
    'internal.example.org',
    '12:30:45',
    '2026-11-22T01:02:03.000Z',
    'sha256:0123456789abcdef',
    '1.2.3',
  ])('keeps %s', (input) => {
    expect(redactText(input)).toBe(input);
  });

  it('redacts keys too, at any depth, without losing colliding keys', () => {
    const doc = {
      hosts: [
        { '10.0.0.1': 'a', '10.0.0.2': 'b', nested: { 'db.corp': { mac: '00:11:22:33:44:55' } } },
      ],
    };
    expect(redactDocument(doc)).toEqual({
      hosts: [
        {
          '[redacted-ip]': 'a',
          '[redacted-ip]#2': 'b',
          nested: { '[redacted-host]': { mac: '[redacted-mac]' } },
        },
      ],
    });
  });

  it('leaves numbers, booleans and null alone and does not change its input', () => {
    const doc = { n: 10, b: true, z: null, s: '10.0.0.1' };
    expect(redactDocument(doc)).toEqual({ n: 10, b: true, z: null, s: '[redacted-ip]' });
    expect(doc.s).toBe('10.0.0.1');
  });
});

const octet = fc.integer({ min: 0, max: 255 });
const privateIPv4 = fc.oneof(
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => `172.${b}.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
  fc.tuple(octet, octet, octet).map(([b, c, d]) => `127.${b}.${c}.${d}`),
  fc.tuple(octet, octet).map(([c, d]) => `169.254.${c}.${d}`),
  fc
    .tuple(fc.integer({ min: 64, max: 127 }), octet, octet)
    .map(([b, c, d]) => `100.${b}.${c}.${d}`),
);
const withSuffix = (address: fc.Arbitrary<string>) =>
  fc
    .tuple(
      address,
      fc.oneof(
        fc.constant(''),
        fc.integer({ min: 0, max: 32 }).map((p) => `/${p}`),
        fc.integer({ min: 1, max: 65535 }).map((p) => `:${p}`),
      ),
    )
    .map(([a, s]) => a + s);
const hex4 = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
const privateIPv6 = fc.oneof(
  fc.constant('::1'),
  fc
    .tuple(fc.integer({ min: 0xfc00, max: 0xfdff }), hex4, hex4)
    .map(([a, b, c]) => `${a.toString(16)}:${b}::${c}`),
  fc
    .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), hex4)
    .map(([a, b]) => `${a.toString(16)}::${b}`),
);
const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const privateHost = fc
  .tuple(
    fc.array(label, { minLength: 1, maxLength: 3 }),
    fc.constantFrom(
      'internal',
      'local',
      'lan',
      'home.arpa',
      'corp',
      'intranet',
      'svc.cluster.local',
    ),
  )
  .map(([labels, suffix]) => `${labels.join('.')}.${suffix}`);
const mac = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 6, maxLength: 6 }),
    fc.constantFrom(':', '-'),
  )
  .map(([bytes, sep]) => bytes.map((b) => b.toString(16).padStart(2, '0')).join(sep));
const publicIPv4 = fc
  .tuple(fc.integer({ min: 1, max: 223 }), octet, octet, octet)
  .filter(
    ([a, b]) =>
      a !== 10 &&
      a !== 127 &&
      !(a === 172 && b >= 16 && b <= 31) &&
      !(a === 192 && b === 168) &&
      !(a === 169 && b === 254) &&
      !(a === 100 && b >= 64 && b <= 127),
  )
  .map((parts) => parts.join('.'));
const publicHost = fc
  .tuple(
    fc.array(label, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('com', 'org', 'io', 'example', 'dev'),
  )
  .map(([labels, tld]) => `${labels.join('.')}.${tld}`);
const words = fc
  .array(fc.constantFrom('ok', 'status', 'host', 'at', 'via', '->', 'ready', '42', 'p99'), {
    maxLength: 4,
  })
  .map((w) => w.join(' '));

/** A JSON document with `planted` strings somewhere in keys or values, at any depth. */
function documentWith(planted: fc.Arbitrary<string>) {
  const text = fc.tuple(words, planted, words).map(([a, p, b]) => `${a} ${p} ${b}`.trim());
  const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), words);
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.array(tie('tree'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(text, words), tie('tree'), { maxKeys: 4 }),
    ),
  }));
  return fc.dictionary(fc.oneof(text, words), tree, { minKeys: 1, maxKeys: 5 });
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

const privateToken = fc.oneof(withSuffix(privateIPv4), privateIPv6, privateHost, mac);

describe('redaction properties (fast-check)', () => {
  it('no private address, internal host name or MAC survives, in keys or values', () => {
    fc.assert(
      fc.property(
        fc.array(privateToken, { minLength: 1, maxLength: 5 }),
        documentWith(privateToken),
        (tokens, doc) => {
          const withTokens = { ...doc, planted: tokens.join(' '), [tokens[0]!]: tokens };
          const out = JSON.stringify(redactDocument(withTokens));
          for (const token of [...tokens, ...strings(withTokens)].filter(
            (s) => /^\S+$/.test(s) && redactText(s) !== s,
          )) {
            expect(out).not.toContain(`"${token}"`);
          }
          for (const token of tokens) expect(out).not.toContain(token);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('every public address and name is kept', () => {
    const publicToken = fc.oneof(
      publicIPv4,
      publicHost,
      fc.constantFrom('2001:db8::1', '2606:4700::1111'),
    );
    fc.assert(
      fc.property(documentWith(publicToken), (doc) => {
        expect(redactDocument(doc)).toEqual(doc);
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(documentWith(fc.oneof(privateToken, publicIPv4, publicHost)), (doc) => {
        const once = redactDocument(doc);
        expect(redactDocument(once)).toEqual(once);
      }),
      { numRuns: 200 },
    );
  });

  it('redacts a 1 MB document in well under a second', () => {
    const rows = Array.from({ length: 6000 }, (_, i) => ({
      id: `row-${i}`,
      host: i % 3 === 0 ? `node-${i}.cluster.local` : `edge-${i}.example.com`,
      address: i % 2 === 0 ? `10.${i % 255}.1.${i % 250}:8080` : `8.8.${i % 255}.8`,
      note: 'rollout status deployment/api --namespace=prod --timeout=180s on 2026-11-22T01:02:03Z',
      mac: '00:50:56:a1:b2:c3',
    }));
    const doc = { rows };
    expect(JSON.stringify(doc).length).toBeGreaterThan(1_000_000);
    const started = performance.now();
    const out = redactDocument(doc);
    const elapsed = performance.now() - started;
    expect(JSON.stringify(out)).not.toMatch(/cluster\.local|10\.\d+\.1\.|00:50:56/);
    expect(elapsed).toBeLessThan(1000);
  });
});
