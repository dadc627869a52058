import type { RE2JS } from 're2js';
import { errors, SILENCE_PROBLEMS } from '../../errors.js';
import { compileRegex, matchesWhole } from './regex-programs.js';
import {
  type CompiledMatcher,
  compileMatcher,
  MatcherError,
  matchesEverything,
} from './silence-matchers.js';
import type { SilenceFields } from './silence-records.js';
import type { PostableSilence } from './silence-schema.js';

/** A silence fit to store, with its regexes compiled once, by pattern. */
export interface ValidatedSilence {
  fields: SilenceFields;
  programs: Map<string, RE2JS>;
}

/**
 * CONTRACT, Silences: "Validation, as Alertmanager's" (api/v2 `postSilencesHandler` and
 * silence `validateSilence`): at least one matcher, one that does not match the empty string,
 * a valid regex in each regex matcher, `endsAt` after `startsAt` and not in the past, and a
 * creator and a comment. A start in the past becomes now, as Alertmanager does. CONTRACT,
 * Under races, crashes and abuse: at most `maxBytes` as JSON, and each regex within its
 * limits; the size is checked first, so an oversized body costs no compiling. Throws the 400
 * naming the first problem.
 */
export function validatedSilence(
  body: PostableSilence,
  now: number,
  maxBytes: number,
): ValidatedSilence {
  const bytes = Buffer.byteLength(JSON.stringify(body));
  if (bytes > maxBytes) throw errors.silenceInvalid(SILENCE_PROBLEMS.tooLarge(bytes, maxBytes));
  if (body.matchers.length === 0) throw errors.silenceInvalid(SILENCE_PROBLEMS.noMatchers);
  const programs = new Map<string, RE2JS>();
  let compiled: CompiledMatcher[];
  try {
    compiled = body.matchers.map((matcher) => {
      if (!matcher.isRegex) return compileMatcher(matcher);
      const program = programs.get(matcher.value) ?? compileRegex(matcher.name, matcher.value);
      programs.set(matcher.value, program);
      return {
        name: matcher.name,
        isEqual: matcher.isEqual,
        matchesValue: (given) => matchesWhole(program, given),
      };
    });
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
  const fields = {
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
  return { fields, programs };
}
