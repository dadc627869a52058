import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { consoleRoot } from './features/console/console-routes.js';
import { startupSummary } from './observability/startup-summary.js';
import { warnUnauthenticatedEndpoints } from './observability/unset-secrets.js';

async function main() {
  const config = loadConfigOrExit();
  const terminal = process.stdout.isTTY === true;
  const app = await buildApp(config, {}, { terminal });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // A stuck dependency must not keep the process alive forever.
    const timer = setTimeout(() => process.exit(1), 15_000);
    timer.unref();
    await app.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  const address = await app.listen({ port: config.port, host: config.host });
  // docs/deployment.md, The first lines after the start: the first lines tell a new user what the service runs with. Describing the
  // start must never stop a service that is already listening.
  try {
    const consoleBuilt = fs.existsSync(path.join(consoleRoot(), 'index.html'));
    const summary = startupSummary(config, { address, consoleBuilt, env: process.env });
    // On a terminal, pino-pretty prints from a worker thread, so its lines may come after these.
    if (terminal) process.stdout.write(`\n${summary.lines.join('\n')}\n\n`);
    else app.log.info({ startup: summary.fields }, `started: ${summary.headline}`);
  } catch (error) {
    app.log.warn({ err: error, address }, 'started, but the start-up summary failed');
  }
  // CONTRACT, Operator console: seen at LOG_LEVEL=warn too, one line each, whatever the summary did.
  try {
    warnUnauthenticatedEndpoints(config, app.log);
  } catch (error) {
    app.log.warn({ err: error }, 'started, but the unset secrets were not listed');
  }
}

main().catch((error: Error) => {
  console.error(`Failed to start: ${error.message}`);
  process.exit(1);
});
