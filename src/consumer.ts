import pino from 'pino';
import { createServices } from './adapters/create-services.js';
import { loadConfigOrExit } from './config.js';
import { createAlertIntake } from './features/intake/alert-intake.js';
import { loadAlertTypeRules } from './features/intake/alert-type-rules.js';
import { startSignalConsumer } from './features/intake/signal-consumer.js';

/** `npm run consumer`: the signal consumer as its own process, beside or instead of the one in the service. */
async function main() {
  const config = loadConfigOrExit();
  const log = pino({ level: config.logLevel, name: 'signal-consumer' });
  const rules = loadAlertTypeRules(config.alertRulesFile);
  const runtime = await createServices(config, log);
  const stop = startSignalConsumer(runtime.services, createAlertIntake(runtime.services, rules));
  log.info('signal consumer started');
  const shutdown = async () => {
    await stop();
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
