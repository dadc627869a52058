import type { AppEnv, Config } from '../config.js';
import { type UnsetSecret, unsetSecrets } from './unset-secrets.js';

/** What the service runs with: the facts a JSON log line carries. No secret, no password. */
export interface StartupFields {
  mode: AppEnv;
  database: string;
  stream: string;
  jobs: string;
  analyzer: string;
  repair: string;
  listen: string;
  console: string;
  docs: string;
  unset: UnsetSecret[];
}

export interface StartupSummary {
  fields: StartupFields;
  /** For `started: <headline>` in a JSON log line. */
  headline: string;
  /** For a person at a terminal. */
  lines: string[];
}

export interface StartupFacts {
  /** What `app.listen` resolved with, e.g. `http://127.0.0.1:8080`. */
  address: string;
  /** False when `dist-console/` is missing: the console answers 503 until it is built. */
  consoleBuilt?: boolean;
}

/** The start-up summary of issue 16: what a new user needs to know from the first lines. */
export function startupSummary(config: Config, facts: StartupFacts): StartupSummary {
  const { address, consoleBuilt = true } = facts;
  const fields: StartupFields = {
    mode: config.appEnv,
    database: describeDatabase(config),
    ...describeBackends(config),
    analyzer:
      config.analyzer === 'openai'
        ? `openai at ${hostOf(config.llmBaseUrl ?? '')}, model ${config.llmModel ?? 'gpt-4o-mini'}`
        : 'rules (built-in, offline)',
    repair:
      config.repairExecutor === 'kubectl'
        ? `kubectl, context ${config.kubectlContext ?? ''}: approved repairs change the cluster`
        : 'dry-run: repairs are recorded in the operation log, nothing is changed',
    listen: address,
    console: `${address}/console/${consoleBuilt ? '' : ' (not built: run npm run build:console)'}`,
    docs: `${address}/docs`,
    unset: unsetSecrets(config),
  };
  return { fields, headline: headlineOf(fields), lines: linesOf(fields) };
}

function describeDatabase(config: Config): string {
  const { database } = config;
  if (database.kind === 'sqlite') return `SQLite ${database.file}`;
  // Host, port and database name only: the URL may carry a user and a password.
  const url = new URL(database.url);
  const name = decodeURIComponent(url.pathname.slice(1)) || '(default database)';
  const schema = database.schema ? `, schema ${database.schema}` : '';
  return `PostgreSQL ${url.hostname || 'localhost'}:${url.port || '5432'}/${name}${schema}`;
}

function describeBackends(config: Config): Pick<StartupFields, 'stream' | 'jobs'> {
  if (!config.redisUrl) {
    return {
      stream: 'embedded, in the database (pub/sub in this process; set REDIS_URL for replicas)',
      jobs: 'SQL job queue in the database',
    };
  }
  const url = new URL(config.redisUrl);
  const tls = url.protocol === 'rediss:' ? ', TLS' : '';
  const prefix = config.redisKeyPrefix ? `, key prefix "${config.redisKeyPrefix}"` : '';
  const redis = `Redis ${url.hostname}:${url.port || '6379'}${tls}${prefix}`;
  return { stream: `Redis Streams and pub/sub on ${redis}`, jobs: `BullMQ on ${redis}` };
}

/** Protocol, host and port of a URL, without any user, password, path or query. */
function hostOf(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}`;
  } catch {
    return '(unreadable URL)';
  }
}

function headlineOf(fields: StartupFields): string {
  const unset = fields.unset.flatMap((entry) => entry.variables);
  const secrets = unset.length === 0 ? 'all secrets set' : `unset: ${unset.join(', ')}`;
  return `${fields.mode}, listening at ${fields.listen}, ${fields.database}, ${secrets}`;
}

function linesOf(fields: StartupFields): string[] {
  const rows: Array<[string, string]> = [
    ['database', fields.database],
    ['stream', fields.stream],
    ['jobs', fields.jobs],
    ['analyzer', fields.analyzer],
    ['repair', fields.repair],
    ['listening', fields.listen],
    ['console', fields.console],
    ['API docs', fields.docs],
  ];
  const lines = [
    `Alert intake and agent operations, APP_ENV=${fields.mode}`,
    ...rows.map(([label, value]) => `  ${label.padEnd(10)} ${value}`),
  ];
  if (fields.unset.length === 0) {
    lines.push('Secrets and integrations: all set.');
    return lines;
  }
  lines.push(`Unset, and what that means in ${fields.mode}:`);
  for (const { variables, meaning } of fields.unset) {
    lines.push(`  ${variables.join(', ')}: ${meaning}`);
  }
  return lines;
}
