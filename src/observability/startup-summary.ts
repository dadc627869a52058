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
  /** Where the PostgreSQL driver takes what DATABASE_URL leaves out (process.env). */
  env?: PostgresEnvironment;
}

/** The start-up summary (docs/deployment.md, The first lines after the start): what a new user needs to know from the first lines. */
export function startupSummary(config: Config, facts: StartupFacts): StartupSummary {
  const { address, consoleBuilt = true, env = {} } = facts;
  const fields: StartupFields = {
    mode: config.appEnv,
    database: describeDatabase(config, env),
    ...describeBackends(config),
    analyzer:
      config.analyzer === 'openai'
        ? `openai at ${hostOf(config.llmBaseUrl ?? '', 'LLM_BASE_URL')}, model ${config.llmModel ?? 'gpt-4o-mini'}`
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

function describeDatabase(config: Config, env: PostgresEnvironment): string {
  const { database } = config;
  if (database.kind === 'sqlite') {
    // The file is opened by that exact name, but it may look like a URL with a credential:
    // an `@` hides the name, and a query- or fragment-like tail is cut.
    if (database.file.includes('@')) return 'SQLite (see DATABASE_URL)';
    const tail = database.file.search(/[?#]/);
    return tail === -1 ? `SQLite ${database.file}` : `SQLite ${database.file.slice(0, tail)}…`;
  }
  const schema = database.schema ? `, schema ${database.schema}` : '';
  return `PostgreSQL ${postgresEndpoint(database.url, env)}${schema}`;
}

/** libpq's defaults for what a URL leaves out. */
export interface PostgresEnvironment {
  PGHOST?: string;
  PGPORT?: string;
  PGDATABASE?: string;
}

/**
 * Host, port and database name only, as the driver will use them: the URL may carry a
 * user and a password. Only a URL with an authority (`postgres://`) is read; in any other
 * form the path may hold the credentials, so nothing of it is shown.
 */
function postgresEndpoint(raw: string, env: PostgresEnvironment): string {
  const url = readableUrl(raw);
  if (!url) return '(see DATABASE_URL)';
  // The driver lets `?host=` and `?port=` win over the URL's own.
  const query = url.searchParams;
  const host = query.get('host') || decoded(url.hostname) || env.PGHOST || 'localhost';
  const port = query.get('port') || url.port || env.PGPORT || '5432';
  // Shown as written (never decoded): decoding can throw, and the name is not a secret.
  const name = url.pathname.slice(1) || env.PGDATABASE || '(default database)';
  return `${host}:${port}/${name}`;
}

function describeBackends(config: Config): Pick<StartupFields, 'stream' | 'jobs'> {
  if (!config.redisUrl) {
    return {
      stream: 'embedded, in the database (pub/sub in this process; set REDIS_URL for replicas)',
      jobs: 'SQL job queue in the database',
    };
  }
  const prefix = config.redisKeyPrefix ? `, key prefix "${config.redisKeyPrefix}"` : '';
  const redis = `Redis ${redisEndpoint(config.redisUrl)}${prefix}`;
  return { stream: `Redis Streams and pub/sub on ${redis}`, jobs: `BullMQ on ${redis}` };
}

/**
 * The URL, when its host can be shown: it parses, has an authority (`scheme://`), and that
 * authority holds any user and password whole. An unencoded `/` in a password ends the
 * authority early and pushes the rest of the credential into the path, where a stray `@`
 * gives it away.
 */
function readableUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (!/^[a-z]+:\/\//i.test(raw)) return undefined;
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) return undefined;
  return url;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Host and port of REDIS_URL, never its user or password. */
function redisEndpoint(raw: string): string {
  const url = readableUrl(raw);
  if (!url) return '(see REDIS_URL)';
  const tls = url.protocol === 'rediss:' ? ', TLS' : '';
  return `${url.hostname || 'localhost'}:${url.port || '6379'}${tls}`;
}

/** Protocol, host and port of a URL setting, without any user, password, path or query. */
function hostOf(raw: string, setting: string): string {
  const url = readableUrl(raw);
  return url ? `${url.protocol}//${url.host}` : `(see ${setting})`;
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
