import pino from 'pino';
import { createServices } from './adapters/create-services.js';
import { loadConfigOrExit } from './config.js';
import { createEscalation } from './features/escalation/escalation.js';
import { createAlertIntake } from './features/intake/alert-intake.js';
import { loadAlertTypeRules } from './features/intake/alert-type-rules.js';
import { startSignalConsumer } from './features/intake/signal-consumer.js';
import { loadPlaybooks } from './features/repair/playbooks.js';
import { createSilences } from './features/silences/silences.js';

/** `npm run consumer`: the signal consumer as its own process, beside or instead of the one in the service. */
async function main() {
  const config = loadConfigOrExit();
  const log = pino({ level: config.logLevel, name: 'signal-consumer' });
  const rules = loadAlertTypeRules(config.alertRulesFile);
  const runtime = await createServices(config, log);
  const { services } = runtime;
  // The same capabilities as the service's own consumer: silences mute, a resolved signal
  // resolves its incident, and a converged one shows its count on the card.
  const escalation = createEscalation(services, loadPlaybooks());
  const silences = createSilences(services);
  await silences.start();
  const intake = createAlertIntake(services, rules, {
    silences,
    incidentMoves: escalation.incidentMoves,
    escalation,
  });
  const stop = startSignalConsumer(services, intake);
  log.info('signal consumer started');
  const shutdown = async () => {
    await stop();
    await escalation.flush();
    escalation.cards.close();
    await silences.stop();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

main().catch((error: Error) => {
  console.error(`Consumer failed to start: ${error.message}`);
  process.exit(1);
});
