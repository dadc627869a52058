import { type Static, Type } from 'typebox';
import { IDENTIFIER_MAX_LENGTH, NO_CONTROL_CHARACTERS } from '../../http/schema-types.js';
import type { Silence } from './silence-records.js';

/**
 * The shapes of Alertmanager's API v2 (prometheus/alertmanager `api/v2/openapi.yaml`:
 * `matcher`, `postableSilence`, `gettableSilence`), with this service's limits on sizes.
 */

/** A matcher's value is a label value or an RE2 pattern; long enough for a list of names. */
const MATCHER_VALUE_MAX_LENGTH = 1024;
const COMMENT_MAX_LENGTH = 16 * 1024;
/** Matchers one silence may carry. */
const MATCHERS_MAX = 100;

export const MatcherSchema = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: IDENTIFIER_MAX_LENGTH,
    pattern: NO_CONTROL_CHARACTERS,
  }),
  value: Type.String({ maxLength: MATCHER_VALUE_MAX_LENGTH }),
  isRegex: Type.Boolean(),
  isEqual: Type.Boolean({ default: true }),
});

const SilenceCore = {
  matchers: Type.Array(MatcherSchema, { minItems: 1, maxItems: MATCHERS_MAX }),
  startsAt: Type.String({ format: 'date-time' }),
  endsAt: Type.String({ format: 'date-time' }),
  createdBy: Type.String({ maxLength: IDENTIFIER_MAX_LENGTH }),
  comment: Type.String({ maxLength: COMMENT_MAX_LENGTH }),
};

export const PostableSilence = Type.Object({
  id: Type.Optional(Type.String({ maxLength: 128, description: 'replaces this silence' })),
  ...SilenceCore,
});
export type PostableSilence = Static<typeof PostableSilence>;

export const SilenceState = Type.Unsafe<'active' | 'pending' | 'expired'>({
  type: 'string',
  enum: ['expired', 'active', 'pending'],
});

export const GettableSilence = Type.Object({
  id: Type.String(),
  status: Type.Object({ state: SilenceState }),
  updatedAt: Type.String({ format: 'date-time' }),
  ...SilenceCore,
  silenced_alerts: Type.Integer({ description: 'firing alerts this silence muted' }),
  recent_silenced: Type.Array(
    Type.Object({
      alert_id: Type.String(),
      fingerprint: Type.String(),
      at: Type.String({ format: 'date-time' }),
    }),
    { description: 'the latest muted alerts, newest first' },
  ),
});

/** CONTRACT, Silences: "a silence is `active` between `startsAt` and `endsAt`". */
export function silenceState(
  silence: Pick<Silence, 'startsAt' | 'endsAt'>,
  now: number,
): 'active' | 'pending' | 'expired' {
  if (now >= silence.endsAt) return 'expired';
  return now < silence.startsAt ? 'pending' : 'active';
}

const iso = (ms: number) => new Date(ms).toISOString();

export function gettableSilence(silence: Silence, now: number): Static<typeof GettableSilence> {
  return {
    id: silence.id,
    status: { state: silenceState(silence, now) },
    updatedAt: iso(silence.updatedAt),
    matchers: silence.matchers,
    startsAt: iso(silence.startsAt),
    endsAt: iso(silence.endsAt),
    createdBy: silence.createdBy,
    comment: silence.comment,
    silenced_alerts: silence.silencedAlerts,
    recent_silenced: silence.recentSilenced.map((muted) => ({ ...muted, at: iso(muted.at) })),
  };
}
