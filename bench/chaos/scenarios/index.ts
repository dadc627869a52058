import type { ChaosScale, ScenarioReport } from '../report.js';
import { diskFullScenario } from './disk-full.js';
import { hostileScenario } from './hostile.js';
import { killMidMovesScenario } from './kill-mid-moves.js';
import { postgresRestartScenario } from './postgres-restart.js';
import { racesScenario } from './races.js';
import { redisOutageScenario } from './redis-outage.js';
import { stormScenario } from './storm.js';
import { upstreamFaultsScenario } from './upstream-faults.js';

export interface ChaosScenario {
  /** What CHAOS_ONLY names it by. */
  name: string;
  run(scale: ChaosScale): Promise<ScenarioReport>;
}

export const CHAOS_SCENARIOS: ChaosScenario[] = [
  { name: 'storm', run: stormScenario },
  { name: 'races', run: racesScenario },
  { name: 'kill-mid-moves', run: killMidMovesScenario },
  { name: 'upstream-faults', run: upstreamFaultsScenario },
  { name: 'redis-outage', run: redisOutageScenario },
  { name: 'postgres-restart', run: postgresRestartScenario },
  { name: 'disk-full', run: diskFullScenario },
  { name: 'hostile', run: hostileScenario },
];
