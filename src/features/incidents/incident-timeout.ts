import { repeatEvery } from '../../support/repeat-every.js';
import { type IncidentMoveDeps, resolveIncident } from './incident-moves.js';
import { silentIncidentIds } from './incident-records.js';

/** CONTRACT, Incident lifecycle: "within 10 seconds of that moment". */
const SWEEP_EVERY_MS = 5_000;
/** Resolutions per sweep; a backlog (a long outage) clears over a few sweeps. */
const SWEEP_BATCH = 200;

/**
 * Resolves, as `timeout`, every unresolved incident that saw no alert for
 * INCIDENT_TIMEOUT_SECONDS. Every replica sweeps: the status's compare-and-set
 * (incident-moves.ts) makes each resolution happen once, and no replica waits out a lease's
 * takeover (30 s) when another dies. Answers how many this sweep resolved.
 */
export async function sweepSilentIncidents(deps: IncidentMoveDeps): Promise<number> {
  const { store, clock, config } = deps.services;
  const before = clock.now() - config.incidentTimeoutSeconds * 1000;
  let resolved = 0;
  // CONTRACT, Under races, crashes and abuse, Resolving: an alert may reach an incident
  // between this pick and its resolution; the resolution checks the silence again.
  for (const id of await silentIncidentIds(store.db, before, SWEEP_BATCH)) {
    if ((await resolveIncident(deps, id, 'timeout', before)).ok) resolved++;
  }
  return resolved;
}

export function startIncidentTimeout(deps: IncidentMoveDeps): { stop(): Promise<void> } {
  const { log } = deps.services;
  return repeatEvery(
    SWEEP_EVERY_MS,
    () => sweepSilentIncidents(deps),
    (error) => log.warn({ err: error }, 'incident timeout sweep failed'),
  );
}
