import { Type } from 'typebox';
import { StringEnum } from '../../http/schema-types.js';
import type { Db } from '../../ports/store.js';
import type { Silences } from '../silences/silences.js';
import { IncidentDetail, incidentDetail } from './incident-detail.js';

/** What an incident page needs of the silences capability (it owns their compiled matchers). */
export type SilenceMatching = Pick<Silences, 'matching'>;

/**
 * An incident with the silences that concern it. Incidents are records and silences a
 * capability above them, so the two meet here, on a floor that may read both (STYLE, Habits).
 */
export const IncidentWithSilences = Type.Object({
  ...IncidentDetail.properties,
  silences: Type.Array(
    Type.Object({
      id: Type.String(),
      state: StringEnum(['active', 'pending'] as const),
      created_by: Type.String(),
      comment: Type.String(),
      starts_at: Type.String({ format: 'date-time' }),
      ends_at: Type.String({ format: 'date-time' }),
    }),
    {
      description:
        'silences, active or pending, whose matchers match the labels of its newest alert ' +
        '(with alertname, severity as sent, namespace, alert_type and workload), ending soonest first',
    },
  ),
});

const iso = (ms: number) => new Date(ms).toISOString();

/** `GET /incidents/{id}` and the operators' moves answer this; undefined for no such incident. */
export async function incidentWithSilences(db: Db, silences: SilenceMatching, id: string) {
  const found = await incidentDetail(db, id);
  if (!found) return undefined;
  const matching = await silences.matching(found.silenceLabels);
  return {
    ...found.detail,
    silences: matching.map((silence) => ({
      id: silence.id,
      state: silence.state,
      created_by: silence.createdBy,
      comment: silence.comment,
      starts_at: iso(silence.startsAt),
      ends_at: iso(silence.endsAt),
    })),
  };
}
