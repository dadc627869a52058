import { type ComponentChildren, toChildArray } from 'preact';
import { neutralized, type TextPiece } from './outside-text';

/**
 * Text from outside the console (alerts, trackers, analyses, documents, API details) is shown
 * isolated, so that a bidirectional override such as U+202E in it cannot reorder the page's own
 * words around it (CONTRACT, "Hostile clients"). `<bdi>` isolates and picks its direction from
 * its own text; the stylesheet says `unicode-bidi: isolate` for it too.
 */
export function Outside({ children }: { children: ComponentChildren }) {
  return (
    <bdi class="outside" dir="auto">
      {toChildArray(children).map((child) =>
        typeof child === 'string' ? neutralized(child) : child,
      )}
    </bdi>
  );
}

/** A JSON string literal on one line of pretty-printed JSON, escapes included. */
const STRING_LITERAL = /("(?:[^"\\\n]|\\.)*")/;

/**
 * Pretty JSON from outside with each string literal isolated: one key or value cannot reorder
 * the quotes, commas and the rest of its line. `mark` may decorate the pieces of a literal.
 */
export function JsonText({
  text,
  mark = (piece) => piece,
}: {
  text: string;
  mark?: (piece: string) => ComponentChildren;
}) {
  return (
    <>
      {text
        .split(STRING_LITERAL)
        .map((part, index) =>
          index % 2 === 1 ? <Outside key={index}>{mark(part)}</Outside> : mark(part),
        )}
    </>
  );
}

/** A line of pieces (outside-text.ts), the outside ones isolated. */
export function OutsideText({ pieces }: { pieces: TextPiece[] }) {
  return (
    <>
      {pieces.map((piece, index) =>
        typeof piece === 'string' ? piece : <Outside key={index}>{piece.outside}</Outside>,
      )}
    </>
  );
}
