import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/support/time-ordered-id.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedId', () => {
  it('is a UUID version 7 with the RFC 9562 variant, carrying the time in its first 48 bits', () => {
    const at = Date.UTC(2026, 10, 26, 6, 0, 0, 123);
    const id = timeOrderedId(at);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
  });

  it('sorts by time, whatever the random part', () => {
    const ids = Array.from({ length: 200 }, (_, i) => timeOrderedId(1_700_000_000_000 + i * 7));
    expect([...ids].sort()).toEqual(ids);
  });

  it('differs between ids made in the same millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => timeOrderedId(1_700_000_000_000)));
    expect(ids.size).toBe(10_000);
  });

  it('stays a well-formed UUID at the ends of the 48-bit range', () => {
    expect(timeOrderedId(0)).toMatch(/^00000000-0000-7/);
    expect(timeOrderedId(2 ** 48 - 1)).toMatch(/^ffffffff-ffff-7/);
    for (const at of [0, 1, 2 ** 48 - 1, Date.now()]) expect(timeOrderedId(at)).toMatch(UUID_V7);
  });
});
