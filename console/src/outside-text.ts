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
  return `\u2068${text}\u2069`;
}

/** A piece of a line: the console's own words, or text from outside that the view isolates. */
export type TextPiece = string | { outside: string };

/** Outside text for a line; an absent field is an empty piece, as an empty `<Outside>` was. */
export function outside(text: string | null | undefined): TextPiece {
  return { outside: text ?? '' };
}
