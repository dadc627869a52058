/**
 * Outside text as plain strings, free of the DOM and JSX so that the helpers building lines of
 * text can be unit-tested in Node. Relative imports of such modules carry `.js`: the root
 * tsconfig (NodeNext) compiles them for their tests too.
 */

/**
 * The isolation of `<Outside>` where no element can go (an option, an attribute, SVG text):
 * the text between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (CONTRACT, "Hostile
 * clients": a U+202E in it cannot reorder the page's own words).
 */
export function isolate(text: string): string {
  return `\u2068${neutralized(text)}\u2069`;
}

/** Embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069). */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * Outside text with its bidirectional controls shown as `[U+202E]` instead of obeyed: a
 * U+2069 in it would otherwise close the isolation around it, and a U+202E after that would
 * reorder the page's own words (no isolation survives its own terminator).
 */
export function neutralized(text: string): string {
  return text.replace(
    BIDI_CONTROLS,
    (control) => `[U+${control.charCodeAt(0).toString(16).toUpperCase()}]`,
  );
}

/** A piece of a line: the console's own words, or text from outside that the view isolates. */
export type TextPiece = string | { outside: string };

/** Outside text for a line; an absent field is an empty piece, as an empty `<Outside>` was. */
export function outside(text: string | null | undefined): TextPiece {
  return { outside: text ?? '' };
}
