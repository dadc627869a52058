import { errors, SILENCE_PROBLEMS } from '../../errors.js';
import type { Services } from '../../services.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';
import { publishEvent } from '../events/feed-events.js';
import { RegexPrograms } from './regex-programs.js';
import { SilenceCache } from './silence-cache.js';
import { type FilterMatcher, silenceMatchesFilter } from './silence-filter.js';
import { compileSilenceMatchers, matchesLabels } from './silence-matchers.js';
import {
  addMutedAlerts,
  countSilencesEndingAfter,
  findSilence,
  findSilences,
  insertSilence,
  type MutedAlert,
  matchableSilencesWithIds,
  replaceSilence,
  type Silence,
  silencesEndingAfter,
  silenceVersionsEndingAfter,
} from './silence-records.js';
import { type PostableSilence, silenceState } from './silence-schema.js';
import { validatedSilence } from './silence-validation.js';

/** Bus topic naming a silence that changed: every replica reloads it. */
const CHANGED_TOPIC = 'silences:changed';
/** Muted-alert counts are written once a tick; ended silences are noticed within one. */
const TICK_MS = 1000;
/** A missed bus message (a Redis reconnect) is made good by a full reload this often. */
const FULL_RELOAD_MS = 30_000;
/** Alertmanager's default `--data.retention`: expired silences stay listed this long. */
export const EXPIRED_RETENTION_MS = 120 * 60 * 60 * 1000;
const EXPIRY_EVENT_TTL_S = 7 * 24 * 60 * 60;
/**
 * Estimated heap of the compiled regexes one replica keeps, and of their remembered verdicts
 * (CONTRACT, Under races, crashes and abuse: 10,000 silences at their limits "fit in 256 MiB
 * of heap"): room for thousands of ordinary patterns, or fifty at the 64 KiB limit; the rest
 * are compiled again when an alert needs them and their verdicts are not remembered.
 */
const REGEX_HEAP_BUDGET = { programBytes: 64 * 1024 * 1024, verdictBytes: 32 * 1024 * 1024 };
/** Silences read whole at a time when a replica loads them. */
const RELOAD_BATCH = 500;
/** Serializes the count check and the write of a silence across replicas. */
const COUNT_LOCK = 'silences:count';

/** A silence that mutes, or will mute once it starts, an incident's labels. */
export interface MatchingSilence extends Silence {
  state: 'active' | 'pending';
}

export interface Silences {
  /** Loads the unexpired silences and listens for changes from other replicas. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** CONTRACT, Silences: the id of an active silence muting these labels; memory only. */
  mutedBy(labels: Readonly<Record<string, string>>): string | undefined;
  /** Counts a muted alert against its silence (written within a tick). */
  noteMuted(silenceId: string, alertId: string, fingerprint: string): void;
  /** Creates a silence, or replaces the one named by `id`; answers its id. */
  save(body: PostableSilence): Promise<string>;
  expire(id: string): Promise<void>;
  find(id: string): Promise<Silence | undefined>;
  list(filter: readonly FilterMatcher[], creators: readonly string[]): Promise<Silence[]>;
  /**
   * The silences not expired whose every matcher matches `labels` (CONTRACT, Silences, as
   * Alertmanager matches), ending soonest first: those this replica holds that match, each
   * read again from the database and judged as stored.
   */
  matching(labels: Readonly<Record<string, string>>): Promise<MatchingSilence[]>;
}

/** What silences use: their records, the bus and feed that tell other replicas and the console. */
export type SilenceDeps = Pick<
  Services,
  'store' | 'bus' | 'feed' | 'clock' | 'log' | 'metrics' | 'once' | 'config'
>;

export function createSilences(services: SilenceDeps): Silences {
  const { store, bus, clock, log, metrics, once, config } = services;
  const programs = new RegexPrograms(REGEX_HEAP_BUDGET, (pattern, reason) =>
    log.warn({ pattern: pattern.slice(0, 128), reason }, 'silences: a stored regex is unusable'),
  );
  const cache = new SilenceCache(programs);
  let muted = new Map<string, MutedAlert[]>();
  let timers: NodeJS.Timeout[] = [];
  let unsubscribe: (() => Promise<void>) | undefined;

  async function reload(id: string): Promise<void> {
    const silence = await findSilence(store.db, id);
    if (silence) cache.put(silence, clock.now());
    else cache.remove(id);
  }

  /** Reads again only what changed, a batch at a time, so the silences are never held twice. */
  async function reloadAll(): Promise<void> {
    const stale = cache.keepOnly(await silenceVersionsEndingAfter(store.db, clock.now()));
    for (let at = 0; at < stale.length; at += RELOAD_BATCH) {
      const batch = await matchableSilencesWithIds(store.db, stale.slice(at, at + RELOAD_BATCH));
      cache.putMany(batch, clock.now());
    }
  }

  async function changed(id: string): Promise<void> {
    await reload(id);
    await bus.publish(CHANGED_TOPIC, id).catch((error: unknown) => {
      log.warn({ err: error, silence_id: id }, 'silences: change not announced to replicas');
    });
  }

  /**
   * Writes the muted alerts noted so far. Flushes run one after another, and each waits for
   * the one before it: a read that flushes first must not pass a tick's flush that already
   * took the batch but has not committed it (the read would count too few).
   */
  let flushing: Promise<void> = Promise.resolve();
  function flushMuted(): Promise<void> {
    flushing = flushing.then(async () => {
      if (muted.size === 0) return;
      const batch = muted;
      muted = new Map();
      for (const [id, alerts] of batch) {
        await addMutedAlerts(store, id, alerts).catch((error: unknown) => {
          log.warn({ err: error, silence_id: id }, 'silences: muted alerts not counted');
        });
      }
    });
    return flushing;
  }

  /** A silence that ran out: one `silence.expired` across replicas. */
  async function announceEnded(): Promise<void> {
    for (const ended of cache.takeEnded(clock.now())) {
      if (await once.claim('silence-expired', `${ended.id}:${ended.endsAt}`, EXPIRY_EVENT_TTL_S)) {
        publishEvent(services, 'silence.expired', {
          silence_id: ended.id,
          actor: ended.createdBy,
        });
      }
    }
  }

  function every(ms: number, work: () => Promise<void>, what: string) {
    const timer = setInterval(() => {
      work().catch((error: unknown) => log.warn({ err: error }, `silences: ${what} failed`));
    }, ms);
    timer.unref();
    timers.push(timer);
  }

  return {
    async start() {
      unsubscribe = await bus.subscribe(CHANGED_TOPIC, (id) => {
        reload(id).catch((error: unknown) =>
          log.warn({ err: error, silence_id: id }, 'silences: change not loaded'),
        );
      });
      await reloadAll();
      every(
        TICK_MS,
        async () => {
          await flushMuted();
          await announceEnded();
        },
        'tick',
      );
      every(FULL_RELOAD_MS, reloadAll, 'reload');
    },

    async stop() {
      for (const timer of timers) clearInterval(timer);
      timers = [];
      await unsubscribe?.().catch(() => undefined);
      unsubscribe = undefined;
      await flushMuted();
      programs.clear();
    },

    mutedBy(labels) {
      return cache.mutedBy(labels, clock.now());
    },

    noteMuted(silenceId, alertId, fingerprint) {
      metrics.alertsSilenced.inc();
      const entry = { alert_id: alertId, fingerprint, at: clock.now() };
      const list = muted.get(silenceId);
      if (list) list.push(entry);
      else muted.set(silenceId, [entry]);
    },

    async save(body) {
      const now = clock.now();
      const validated = validatedSilence(body, now, config.silenceMaxBytes);
      const { fields } = validated;
      const id = body.id ?? timeOrderedId();
      // CONTRACT, Under races, crashes and abuse: the count and the write under one lock
      // (a mutex row on PostgreSQL, the write lock on SQLite), so replicas creating at once
      // never pass SILENCES_MAX together.
      await store.withLock(COUNT_LOCK, async (tx) => {
        const replaced = body.id === undefined ? undefined : await findSilence(tx, id);
        if (body.id !== undefined && !replaced) throw errors.notFound('silence_not_found', id);
        // Replacing an unexpired silence keeps the count; a new one, or an expired one
        // renewed, adds one.
        if (!replaced || replaced.endsAt <= now) {
          const unexpired = await countSilencesEndingAfter(tx, now);
          if (unexpired >= config.silencesMax) {
            throw errors.silenceInvalid(SILENCE_PROBLEMS.tooMany(config.silencesMax));
          }
        }
        if (replaced) await replaceSilence(tx, id, fields);
        else await insertSilence(tx, id, fields);
      });
      for (const [pattern, program] of validated.programs) programs.keep(pattern, program);
      await changed(id);
      publishEvent(services, 'silence.created', { silence_id: id, actor: fields.createdBy });
      return id;
    },

    async expire(id) {
      const silence = await findSilence(store.db, id);
      if (!silence) throw errors.notFound('silence_not_found', id);
      const now = clock.now();
      const state = silenceState(silence, now);
      // Alertmanager: an expired silence stays as it ended; a pending one never starts.
      if (state === 'expired') return;
      await replaceSilence(store.db, id, {
        ...silence,
        startsAt: state === 'pending' ? now : silence.startsAt,
        endsAt: now,
        updatedAt: now,
      });
      await changed(id);
      publishEvent(services, 'silence.expired', { silence_id: id, actor: silence.createdBy });
    },

    async find(id) {
      await flushMuted();
      return findSilence(store.db, id);
    },

    async list(filter, creators) {
      await flushMuted();
      const now = clock.now();
      const listed = await silencesEndingAfter(store.db, now - EXPIRED_RETENTION_MS);
      return sortedAsAlertmanager(
        listed.filter(
          (silence) =>
            (creators.length === 0 || creators.includes(silence.createdBy)) &&
            silenceMatchesFilter(silence.matchers, filter),
        ),
        now,
      );
    },

    async matching(labels) {
      const now = clock.now();
      const found: MatchingSilence[] = [];
      // The held silences say which may match; each is read again and judged as stored, so a
      // change another replica made and this one has not heard of yet is not answered.
      for (const silence of await findSilences(store.db, cache.matchingIds(labels, now))) {
        const state = silenceState(silence, now);
        if (state === 'expired') continue;
        if (!matchesLabels(compileSilenceMatchers(silence.matchers, programs), labels)) continue;
        found.push({ ...silence, state });
      }
      return found.sort((a, b) => a.endsAt - b.endsAt);
    },
  };
}

/**
 * Alertmanager's `SortSilences`: active ones first, ending soonest first; then pending ones,
 * starting soonest first; then expired ones, most recently ended first.
 */
function sortedAsAlertmanager(silences: Silence[], now: number): Silence[] {
  const rank = { active: 0, pending: 1, expired: 2 } as const;
  const key = (silence: Silence) => {
    const state = silenceState(silence, now);
    const time =
      state === 'active'
        ? silence.endsAt
        : state === 'pending'
          ? silence.startsAt
          : -silence.endsAt;
    return [rank[state], time] as const;
  };
  return silences.sort((a, b) => {
    const [ra, ta] = key(a);
    const [rb, tb] = key(b);
    return ra - rb || ta - tb;
  });
}
