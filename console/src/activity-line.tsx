import type { LinePiece } from './feed-text';
import { RecordLink } from './links';
import { Outside } from './outside';

/** A line of pieces (feed-text.ts): outside text isolated, each record a link to its page. */
export function ActivityLine({ pieces }: { pieces: LinePiece[] }) {
  return (
    <>
      {pieces.map((piece, index) => {
        if (typeof piece === 'string') return piece;
        if ('outside' in piece) return <Outside key={index}>{piece.outside}</Outside>;
        const { label } = piece;
        return (
          <RecordLink key={index} kind={piece.record} id={piece.id}>
            {label === undefined ? undefined : typeof label === 'string' ? (
              label
            ) : (
              <Outside>{label.outside}</Outside>
            )}
          </RecordLink>
        );
      })}
    </>
  );
}
