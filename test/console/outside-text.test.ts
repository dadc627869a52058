import { describe, expect, it } from 'vitest';
import { isolate, neutralized } from '../../console/src/outside-text.js';

/** CONTRACT, Hostile clients: outside text cannot reorder the page's own words. */
describe('neutralized outside text', () => {
  it('shows every embedding, override and isolate control as text', () => {
    const controls = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
    expect(neutralized(`a${controls}b`)).toBe(
      'a[U+202A][U+202B][U+202C][U+202D][U+202E][U+2066][U+2067][U+2068][U+2069]b',
    );
  });

  it('keeps other text as it is, right-to-left scripts included', () => {
    expect(neutralized('checkout-1 שלום مرحبا')).toBe('checkout-1 שלום مرحبا');
  });

  it('isolates the neutralized text, so a U+2069 inside cannot close the isolation', () => {
    expect(isolate('x\u2069\u202eevil')).toBe('\u2068x[U+2069][U+202E]evil\u2069');
  });
});
