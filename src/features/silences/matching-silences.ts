import type { Db } from '../../ports/store.js';
import { type CompiledMatcher, compileMatcher, matchesLabels } from './silence-matchers.js';
import { type Silence, silencesEndingAfter } from './silence-records.js';
import { silenceState } from './silence-schema.js';

export interface MatchingSilence extends Silence {
  state: 'active' | 'pending';
}

/** A stored silence's matchers, compiled; null for one that no longer compiles. */
function compiledOrNull(silence: Silence): CompiledMatcher[] | null {
  try {
    return silence.matchers.map(compileMatcher);
  } catch {
    return null;
  }
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
