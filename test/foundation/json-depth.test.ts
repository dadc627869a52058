import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/http/json-body.js';

/** The plain byte-by-byte scan the fast one (which jumps over strings) must agree with. */
function referenceDepthOver(raw: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index];
    if (inString) {
      if (byte === 0x5c) index++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > limit) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}

describe('JSON nesting depth check', () => {
  it('agrees with a byte-by-byte scan on text full of quotes, escapes and brackets', () => {
    const piece = fc.constantFrom('"', '\\', '\\"', '\\\\', '{', '}', '[', ']', 'a', ',', ':', 'é');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 200 }),
        fc.integer({ min: 0, max: 8 }),
        (parts, limit) => {
          const raw = Buffer.from(parts.join(''), 'utf8');
          expect(nestsDeeperThan(raw, limit)).toBe(referenceDepthOver(raw, limit));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(Buffer.from('{"a":"[[[[\\"[[[["}'), 2)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('{"a\\\\":[[1]]}'), 2)).toBe(true);
    expect(nestsDeeperThan(Buffer.from(JSON.stringify(JSON.parse('[[[["x"]]]]'))), 3)).toBe(true);
  });
});
