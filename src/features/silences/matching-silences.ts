import type { Db } from '../../ports/store.js';
import { type CompiledMatcher, compileMatcher, matchesLabels } from './silence-matchers.js';
import { type Silence, silencesEndingAfter } from './silence-records.js';
import { silenceState } from './silence-schema.js';

export interface MatchingSilence extends Silence {
  state: 'active' | 'pending';
}

/**
 * Compiled matchers by silence and version: an incident page is read again on every move in
 * a storm, and compiling a thousand regex silences each time cost 70-110 ms a read. Keyed
 * by what the silence is, so a replaced one is compiled anew; the map is emptied
 * when it outgrows every silence a deployment keeps.
 */
const compiled = new Map<string, CompiledMatcher[] | null>();
const MAX_COMPILED = 10_000;

/** A stored silence's matchers, compiled; null for one that no longer compiles. */
function compiledOrNull(silence: Silence): CompiledMatcher[] | null {
  // The matchers themselves are part of the key: two replacements within a millisecond.
  const key = `${silence.id}\0${silence.updatedAt}\0${JSON.stringify(silence.matchers)}`;
  const known = compiled.get(key);
  if (known !== undefined) return known;
  let matchers: CompiledMatcher[] | null;
  try {
    matchers = silence.matchers.map(compileMatcher);
  } catch {
    matchers = null;
  }
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(key, matchers);
  return matchers;
}

/**
 * The silences that mute, or will mute once they start, an alert with `labels`: those not
 * expired whose every matcher matches (CONTRACT, Silences, as Alertmanager matches), ending
 * soonest first. Read from the database, so every replica answers alike.
 */
export async function silencesMatching(
  db: Db,
  labels: Readonly<Record<string, string>>,
  now: number,
): Promise<MatchingSilence[]> {
  const matching: MatchingSilence[] = [];
  for (const silence of await silencesEndingAfter(db, now)) {
    const matchers = compiledOrNull(silence);
    if (matchers === null || !matchesLabels(matchers, labels)) continue;
    const state = silenceState(silence, now);
    if (state !== 'expired') matching.push({ ...silence, state });
  }
  return matching;
}
