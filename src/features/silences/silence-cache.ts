import type { RegexPrograms } from './regex-programs.js';
import { type CompiledMatcher, compileSilenceMatchers, matchesLabels } from './silence-matchers.js';
import type { MatchableSilence, SilenceVersion } from './silence-records.js';

/** An unexpired silence with its matchers ready (regexes judged by the shared programs). */
export interface CachedSilence {
  id: string;
  startsAt: number;
  endsAt: number;
  updatedAt: number;
  createdBy: string;
  matchers: CompiledMatcher[];
}

/**
 * The silences one replica holds in memory (CONTRACT, Silences: the converged path never asks
 * the database). Most silences name a label exactly (`alertname="X"`), so they are indexed by
 * their first such matcher: an alert is checked only against the silences its own labels
 * point to, plus the few without one, and 1,000 silences that do not concern it cost a
 * handful of map lookups.
 */
export class SilenceCache {
  private readonly entries = new Map<string, CachedSilence>();
  /** label name → label value → silences whose first exact, non-empty matcher is that pair */
  private byLabel = new Map<string, Map<string, CachedSilence[]>>();
  private unindexed: CachedSilence[] = [];
  /**
   * Label set → the silences it matches whatever the time, newest use last; emptied whenever
   * the silences held change.
   */
  private readonly remembered = new Map<string, CachedSilence[]>();
  /** How many silences the remembered label sets name in all. */
  private rememberedMatches = 0;

  /** `programs` compiles a regex when an alert first needs it, within its heap budget. */
  constructor(
    private readonly programs: RegexPrograms,
    private readonly budget: RememberedBudget = DEFAULT_REMEMBERED_BUDGET,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Puts a silence in (unless this version is already held) or takes it out. */
  put(silence: MatchableSilence, now: number): void {
    if (this.hold(silence, now)) this.reindex();
  }

  private hold(silence: MatchableSilence, now: number): boolean {
    if (silence.endsAt <= now) return this.entries.delete(silence.id);
    const held = this.entries.get(silence.id);
    if (held && held.updatedAt === silence.updatedAt && held.endsAt === silence.endsAt) {
      return false;
    }
    this.entries.set(silence.id, {
      id: silence.id,
      startsAt: silence.startsAt,
      endsAt: silence.endsAt,
      updatedAt: silence.updatedAt,
      createdBy: silence.createdBy,
      matchers: compileSilenceMatchers(silence.matchers, this.programs),
    });
    return true;
  }

  remove(id: string): void {
    if (this.entries.delete(id)) this.reindex();
  }

  /** Holds exactly `silences` (the unexpired ones read from the database). */
  replaceAll(silences: readonly MatchableSilence[], now: number): void {
    this.keepOnly(silences);
    this.putMany(silences, now);
  }

  /**
   * Drops the silences `versions` does not name, and answers the ids of those it names in
   * another version than the one held, or not held: the ones to read whole again.
   */
  keepOnly(versions: readonly SilenceVersion[]): string[] {
    const keep = new Set(versions.map((version) => version.id));
    let dropped = false;
    for (const id of [...this.entries.keys()]) {
      if (!keep.has(id)) dropped = this.entries.delete(id) || dropped;
    }
    if (dropped) this.reindex();
    return versions
      .filter((version) => {
        const held = this.entries.get(version.id);
        return !held || held.updatedAt !== version.updatedAt || held.endsAt !== version.endsAt;
      })
      .map((version) => version.id);
  }

  /** Puts several silences in, indexing once. */
  putMany(silences: readonly MatchableSilence[], now: number): void {
    let changed = false;
    for (const silence of silences) changed = this.hold(silence, now) || changed;
    if (changed) this.reindex();
  }

  /** The ids of the silences, active or pending, whose every matcher matches `labels`. */
  matchingIds(labels: Readonly<Record<string, string>>, now: number): string[] {
    const ids: string[] = [];
    for (const entry of this.entries.values()) {
      if (entry.endsAt > now && matchesLabels(entry.matchers, labels)) ids.push(entry.id);
    }
    return ids;
  }

  /** Takes out the silences that ended by `now`, and returns them. */
  takeEnded(now: number): CachedSilence[] {
    const ended = [...this.entries.values()].filter((entry) => entry.endsAt <= now);
    for (const entry of ended) this.entries.delete(entry.id);
    if (ended.length > 0) this.reindex();
    return ended;
  }

  /** The id of an active silence whose matchers all match `labels`, if any. */
  mutedBy(labels: Readonly<Record<string, string>>, now: number): string | undefined {
    if (this.entries.size < this.budget.from) return this.firstMutingOf(labels, now);
    // Many silences: an alert that comes again (a converged one) finds the silences its labels
    // match remembered, and only their time windows are checked (CONTRACT, Under races,
    // crashes and abuse: 10,000 silences cost a converged alert at most a fifth).
    const key = labelsKey(labels);
    let matching = this.remembered.get(key);
    if (matching) {
      this.remembered.delete(key);
      this.remembered.set(key, matching);
    } else {
      matching = this.matchingIgnoringTime(labels);
      this.remember(key, matching);
    }
    for (const entry of matching) {
      if (entry.startsAt <= now && now < entry.endsAt) return entry.id;
    }
    return undefined;
  }

  /**
   * Keeps `matching` for `key` within both budgets, the least recently used going first; a
   * label set matching very many silences is judged afresh each time instead.
   */
  private remember(key: string, matching: CachedSilence[]): void {
    if (matching.length > this.budget.matchesPerSet) return;
    while (
      this.remembered.size >= this.budget.labelSets ||
      this.rememberedMatches + matching.length > this.budget.matches
    ) {
      const oldest = this.remembered.entries().next();
      if (oldest.done) break;
      this.remembered.delete(oldest.value[0]);
      this.rememberedMatches -= oldest.value[1].length;
    }
    this.remembered.set(key, matching);
    this.rememberedMatches += matching.length;
  }

  private firstMutingOf(labels: Readonly<Record<string, string>>, now: number) {
    for (const [name, byValue] of this.byLabel) {
      const value = Object.hasOwn(labels, name) ? labels[name] : undefined;
      if (value === undefined) continue;
      const found = firstMuting(byValue.get(value), labels, now);
      if (found) return found;
    }
    return firstMuting(this.unindexed, labels, now);
  }

  /** The held silences whose matchers all match `labels`, active or not, in mutedBy's order. */
  private matchingIgnoringTime(labels: Readonly<Record<string, string>>): CachedSilence[] {
    const matching: CachedSilence[] = [];
    const collect = (candidates: readonly CachedSilence[] | undefined) => {
      for (const entry of candidates ?? []) {
        if (matchesLabels(entry.matchers, labels)) matching.push(entry);
      }
    };
    for (const [name, byValue] of this.byLabel) {
      const value = Object.hasOwn(labels, name) ? labels[name] : undefined;
      if (value !== undefined) collect(byValue.get(value));
    }
    collect(this.unindexed);
    return matching;
  }

  private reindex(): void {
    this.remembered.clear();
    this.rememberedMatches = 0;
    const byLabel = new Map<string, Map<string, CachedSilence[]>>();
    const unindexed: CachedSilence[] = [];
    for (const entry of this.entries.values()) {
      const key = entry.matchers.find(isIndexable);
      if (!key) {
        unindexed.push(entry);
        continue;
      }
      const value = key.exactValue ?? '';
      const byValue = byLabel.get(key.name) ?? new Map<string, CachedSilence[]>();
      byLabel.set(key.name, byValue);
      const list = byValue.get(value);
      if (list) list.push(entry);
      else byValue.set(value, [entry]);
    }
    this.byLabel = byLabel;
    this.unindexed = unindexed;
  }
}

/** What the remembered label-set matches may hold. */
export interface RememberedBudget {
  /** Below this many silences every alert is judged afresh: its label set's key costs more. */
  from: number;
  /** How many label sets are remembered; the least recently used go first. */
  labelSets: number;
  /** How many matches they hold in all (about 8 bytes each), whatever the number of sets. */
  matches: number;
  /** A label set matching more silences than this is not remembered. */
  matchesPerSet: number;
}

const DEFAULT_REMEMBERED_BUDGET: RememberedBudget = {
  from: 64,
  labelSets: 4096,
  matches: 262_144,
  matchesPerSet: 256,
};

/** One string per label set, whatever the order its labels came in. */
function labelsKey(labels: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** An equality matcher on a non-empty value: only alerts carrying that exact label match. */
function isIndexable(matcher: CompiledMatcher): boolean {
  return matcher.isEqual && matcher.exactValue !== undefined && matcher.exactValue !== '';
}

function firstMuting(
  candidates: readonly CachedSilence[] | undefined,
  labels: Readonly<Record<string, string>>,
  now: number,
): string | undefined {
  if (!candidates) return undefined;
  for (const entry of candidates) {
    if (entry.startsAt <= now && now < entry.endsAt && matchesLabels(entry.matchers, labels)) {
      return entry.id;
    }
  }
  return undefined;
}
