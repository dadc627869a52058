import { errors, SILENCE_PROBLEMS } from '../../errors.js';
import { compileMatcher, MatcherError, matchesEverything } from './silence-matchers.js';
import type { SilenceFields } from './silence-records.js';
import type { PostableSilence } from './silence-schema.js';

/**
 * CONTRACT, Silences: "Validation, as Alertmanager's" (api/v2 `postSilencesHandler` and
 * silence `validateSilence`): at least one matcher, one that does not match the empty string,
 * a valid regex in each regex matcher, `endsAt` after `startsAt` and not in the past, and a
 * creator and a comment. A start in the past becomes now, as Alertmanager does. Throws the
 * 400 naming the first problem.
 */
export function validatedSilence(body: PostableSilence, now: number): SilenceFields {
  if (body.matchers.length === 0) throw errors.silenceInvalid(SILENCE_PROBLEMS.noMatchers);
  let compiled: ReturnType<typeof compileMatcher>[];
  try {
    compiled = body.matchers.map(compileMatcher);
  } catch (error) {
    if (error instanceof MatcherError) throw errors.silenceInvalid(error.message);
    throw error;
  }
  if (matchesEverything(compiled)) {
    throw errors.silenceInvalid(SILENCE_PROBLEMS.matchesEverything);
  }
  const startsAt = Date.parse(body.startsAt);
  const endsAt = Date.parse(body.endsAt);
  if (!(startsAt < endsAt)) throw errors.silenceInvalid(SILENCE_PROBLEMS.startNotBeforeEnd);
  if (endsAt <= now) throw errors.silenceInvalid(SILENCE_PROBLEMS.endInPast);
  if (body.createdBy.trim() === '') throw errors.silenceInvalid(SILENCE_PROBLEMS.noCreator);
  if (body.comment.trim() === '') throw errors.silenceInvalid(SILENCE_PROBLEMS.noComment);
  return {
    matchers: body.matchers.map(({ name, value, isRegex, isEqual }) => ({
      name,
      value,
      isRegex,
      isEqual,
    })),
    startsAt: Math.max(startsAt, now),
    endsAt,
    updatedAt: now,
    createdBy: body.createdBy,
    comment: body.comment,
  };
}
