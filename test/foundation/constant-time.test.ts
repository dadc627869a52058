import crypto from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { equalDigests, equalInConstantTime } from '../../src/support/constant-time.js';

const hmac = (body: string) => crypto.createHmac('sha256', 'secret').update(body).digest('hex');

describe('constant-time comparisons', () => {
  it('a digest equals only the same text, whatever its length or characters', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (given, expected) => {
        expect(equalDigests(given, expected)).toBe(given === expected);
        expect(equalInConstantTime(given, expected)).toBe(given === expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a prefix, a case change, one changed character and a longer text', () => {
    const digest = hmac('body');
    expect(equalDigests(digest, digest)).toBe(true);
    expect(equalDigests(digest.slice(0, 63), digest)).toBe(false);
    expect(equalDigests(digest.toUpperCase(), digest)).toBe(digest === digest.toUpperCase());
    const flipped = `${digest.slice(0, 10)}${digest[10] === 'a' ? 'b' : 'a'}${digest.slice(11)}`;
    expect(equalDigests(flipped, digest)).toBe(false);
    expect(equalDigests(`${digest}0`, digest)).toBe(false);
    // Same count of characters, other count of bytes: not equal, and no throw.
    expect(equalDigests(`é${digest.slice(1)}`, digest)).toBe(false);
  });
});
