import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppEnv, loadConfig } from '../../src/config.js';
import { loggerOptions } from '../../src/observability/logger-options.js';
import { startupSummary } from '../../src/observability/startup-summary.js';
import { tempDir } from '../helpers/backends.js';

const dataDir = tempDir();
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const ADDRESS = 'http://127.0.0.1:8080';

/** Every unset secret or integration that changes behaviour, with a word of its meaning. */
const UNSET_MEANINGS: Record<AppEnv | 'other', Record<string, RegExp>> = {
  prod: {
    WEBHOOK_SECRET: /webhooks\/alerts and .*webhooks\/signals refuse every delivery/,
    RECEIVER_TOKENS: /webhooks\/alertmanager .*heartbeats.* refuses every delivery/,
    ERRTRACKER_CLIENT_SECRET: /errtracker\/error refuses every delivery/,
    CHAT_WEBHOOK_SECRET: /chatops\/webhook refuses every delivery/,
    CONSOLE_TOKEN: /read API answers 403/,
  },
  other: {
    WEBHOOK_SECRET: /signatures on .*webhooks\/alerts and .*webhooks\/signals are not checked/,
    RECEIVER_TOKENS: /webhooks\/alertmanager .*heartbeats.* accepts deliveries without a token/,
    ERRTRACKER_CLIENT_SECRET: /signatures \(errtracker-hook-signature\) are not checked/,
    CHAT_WEBHOOK_SECRET: /chatops\/webhook takes chat updates from anyone/,
    CONSOLE_TOKEN: /read API, .* are open to anyone/,
  },
  development: {},
  test: {},
  staging: {},
};
const SHARED_MEANINGS: Record<string, RegExp> = {
  ERRTRACKER_API_BASE: /not posted as tracker comments/,
  ERRTRACKER_API_TOKEN: /not posted as tracker comments/,
  CHAT_BOT_TOKEN: /chat is off/,
  CHAT_CHAT_ID: /chat is off/,
  OPERATOR_KEYS: /nobody can decide approvals from the console.*canaries are refused/,
};

/** Every secret the service takes, each with a value no summary may contain. */
const SECRETS = {
  WEBHOOK_SECRET: 'whsec-startup-7f3a9c1e',
  WEBHOOK_SECRET_PREVIOUS: 'whsec-previous-startup-2b8d',
  RECEIVER_TOKENS: 'receiver-startup-6d1e8b2f,receiver-startup-second-91ac',
  ERRTRACKER_CLIENT_SECRET: 'trk-client-startup-5e1c',
  ERRTRACKER_API_BASE: 'https://trkuser:trkApiPw9@tracker.example',
  ERRTRACKER_API_TOKEN: 'trk-api-startup-8d2f',
  CHAT_BOT_TOKEN: '123456789:AAstartupBotTokenValue',
  CHAT_CHAT_ID: '-100987654321',
  CHAT_WEBHOOK_SECRET: 'chat-webhook-startup-4c7e',
  CHAT_WHITELIST: '4242',
  CONSOLE_TOKEN: 'console-startup-3a6b',
  OPERATOR_KEYS: 'alice:operator-startup-key-6d1a',
  ANALYZER: 'openai',
  LLM_BASE_URL: 'https://llmuser:llmUrlPw7@llm.example/v1',
  LLM_API_KEY: 'llm-api-startup-9f4e',
  DATABASE_URL: 'postgres://app:s3cretPw@db.example:5432/alerts?schema=tenant_a',
  REDIS_URL: 'redis://cacheuser:r3disPw@cache.example:6380/2',
};
const SECRET_VALUES = [
  'whsec-startup-7f3a9c1e',
  'whsec-previous-startup-2b8d',
  'receiver-startup-6d1e8b2f',
  'receiver-startup-second-91ac',
  'trk-client-startup-5e1c',
  'trkApiPw9',
  'trk-api-startup-8d2f',
  'AAstartupBotTokenValue',
  'chat-webhook-startup-4c7e',
  'console-startup-3a6b',
  'operator-startup-key-6d1a',
  'llmUrlPw7',
  'llm-api-startup-9f4e',
  's3cretPw',
  'r3disPw',
  // URL user names are credentials too.
  'trkuser',
  'llmuser',
  'cacheuser',
  'app:',
];

function summaryOf(env: Record<string, string>) {
  return startupSummary(loadConfig({ DATA_DIR: dataDir, ...env }, dataDir), { address: ADDRESS });
}

describe('the start-up summary', () => {
  it.each(['prod', 'development', 'staging'] as const)(
    'in %s with no secret set, names every unset secret and what it means there',
    (appEnv) => {
      const { fields, lines, headline } = summaryOf({ APP_ENV: appEnv });
      const expected = {
        ...SHARED_MEANINGS,
        ...UNSET_MEANINGS[appEnv === 'prod' ? 'prod' : 'other'],
      };
      const meanings = new Map(
        fields.unset.flatMap(({ variables, meaning }) => variables.map((name) => [name, meaning])),
      );
      expect([...meanings.keys()].sort()).toEqual(Object.keys(expected).sort());
      const text = lines.join('\n');
      for (const [name, meaning] of Object.entries(expected)) {
        expect(meanings.get(name), name).toMatch(meaning);
        expect(text).toContain(name);
        expect(headline).toContain(name);
      }
      expect(text).toContain(`APP_ENV=${appEnv}`);
      expect(fields).toMatchObject({
        mode: appEnv,
        database: `SQLite ${dataDir}/app.db`,
        jobs: 'SQL job queue in the database',
        listen: ADDRESS,
        console: `${ADDRESS}/console/`,
        docs: `${ADDRESS}/docs`,
      });
      expect(fields.stream).toMatch(/^embedded, in the database/);
      for (const value of Object.values(fields).filter((field) => typeof field === 'string')) {
        expect(text).toContain(value);
      }
    },
  );

  it('names the chat settings that matter once a bot token is set', () => {
    const { fields } = summaryOf({ CHAT_BOT_TOKEN: '1:token' });
    const unset = fields.unset.map(({ variables }) => variables.join(','));
    expect(unset).toEqual(expect.arrayContaining(['CHAT_CHAT_ID', 'CHAT_WHITELIST']));
    expect(unset).not.toContain('CHAT_BOT_TOKEN');
  });

  it('with every secret set, contains no secret value and no password, and says all is set', () => {
    for (const appEnv of ['prod', 'development']) {
      const { fields, lines, headline } = summaryOf({ ...SECRETS, APP_ENV: appEnv });
      expect(fields.unset).toEqual([]);
      const everything = [JSON.stringify(fields), headline, ...lines].join('\n');
      for (const secret of SECRET_VALUES) expect(everything).not.toContain(secret);
      expect(lines.join('\n')).toContain('all set');
      expect(fields.database).toBe('PostgreSQL db.example:5432/alerts, schema tenant_a');
      expect(fields.stream).toContain('Redis cache.example:6380');
      expect(fields.jobs).toBe('BullMQ on Redis cache.example:6380');
      expect(fields.analyzer).toContain('https://llm.example');
    }
  });

  it('tells when the console is not built', () => {
    const config = loadConfig({ DATA_DIR: dataDir }, dataDir);
    const { fields } = startupSummary(config, { address: ADDRESS, consoleBuilt: false });
    expect(fields.console).toContain('npm run build:console');
  });
});

describe('the database and Redis lines of the start-up summary', () => {
  function databaseOf(databaseUrl: string, env: Record<string, string> = {}) {
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }, dataDir);
    return startupSummary(config, { address: ADDRESS, env }).fields.database;
  }

  it.each([
    'postgres:user:Pw1secret@db.example/app',
    'postgres:/user:Pw1secret@db.example/app',
    'postgresql:user:Pw1secret@db.example:5432/app',
  ])('shows nothing of a URL without an authority, whose path may hold a password: %s', (url) => {
    const shown = databaseOf(url);
    expect(shown).toBe('PostgreSQL (see DATABASE_URL)');
    expect(shown).not.toContain('Pw1secret');
  });

  it('shows a database name as written, never decoding it (a bad escape cannot throw)', () => {
    expect(databaseOf('postgres://app:Pw1secret@db.example/app%ZZ')).toBe(
      'PostgreSQL db.example:5432/app%ZZ',
    );
  });

  it('takes host and port from the query, then PGHOST and PGPORT, as the driver does', () => {
    expect(databaseOf('postgresql:///alerts?host=/var/run/postgresql&port=5433')).toBe(
      'PostgreSQL /var/run/postgresql:5433/alerts',
    );
    expect(
      databaseOf('postgres://', { PGHOST: 'pg.internal', PGPORT: '6432', PGDATABASE: 'ops' }),
    ).toBe('PostgreSQL pg.internal:6432/ops');
    expect(databaseOf('postgres:///alerts')).toBe('PostgreSQL localhost:5432/alerts');
    expect(databaseOf('postgres://a.example:5432/db?host=b.example&port=6000')).toBe(
      'PostgreSQL b.example:6000/db',
    );
  });

  it.each([
    ['postgres://app:1234/5678@db.example/app', 'DATABASE_URL'],
    ['postgres://app:5432/secret@db.example:5432/app', 'DATABASE_URL'],
  ])('shows nothing of %s, whose unencoded / splits the password into the path', (url) => {
    const shown = databaseOf(url);
    expect(shown).toBe('PostgreSQL (see DATABASE_URL)');
    expect(shown).not.toMatch(/5678|secret|app:/);
  });

  it('shows a SQLite file without what follows a question mark', () => {
    expect(databaseOf('sqlite:/var/lib/app.db?password=Pw1secret')).toBe('SQLite /var/lib/app.db…');
    expect(databaseOf('sqlite:/var/lib/app.db#Pw1secret')).toBe('SQLite /var/lib/app.db…');
    expect(databaseOf('sqlite://user:Pw1secret@host/x.db')).toBe('SQLite (see DATABASE_URL)');
    expect(databaseOf('sqlite:/var/lib/app.db')).toBe('SQLite /var/lib/app.db');
  });

  it.each([
    'redis:user:Pw1secret@cache.example:6380',
    'redis://user:1234/Pw1secret@cache.example:6380/0',
  ])('shows nothing of a Redis URL that does not hold its credentials whole: %s', (url) => {
    const config = loadConfig({ DATA_DIR: dataDir, REDIS_URL: url }, dataDir);
    const { fields, lines } = startupSummary(config, { address: ADDRESS });
    expect(fields.stream).toContain('Redis (see REDIS_URL)');
    expect(lines.join('\n')).not.toMatch(/Pw1secret|user/);
  });
});

describe('the analyzer line of the start-up summary', () => {
  it('shows nothing of an LLM_BASE_URL whose unencoded / splits the password into the path', () => {
    const config = loadConfig(
      {
        DATA_DIR: dataDir,
        ANALYZER: 'openai',
        LLM_BASE_URL: 'https://llmuser:12/34secret@llm.example/v1',
        LLM_API_KEY: 'k',
      },
      dataDir,
    );
    const { fields } = startupSummary(config, { address: ADDRESS });
    expect(fields.analyzer).toContain('(see LLM_BASE_URL)');
    expect(fields.analyzer).not.toMatch(/llmuser|34secret/);
  });
});

describe('log output', () => {
  it('is pretty through pino-pretty on a terminal, keeping the level and the redactions', () => {
    const options = loggerOptions('debug', true);
    expect(options.transport).toMatchObject({ target: 'pino-pretty' });
    expect(options.level).toBe('debug');
    expect(options.redact).toContain('req.headers.authorization');
  });

  it('is JSON (no transport) anywhere else', () => {
    const options = loggerOptions('info', false);
    expect(options.transport).toBeUndefined();
    expect(options.redact).toContain('req.headers.authorization');
  });
});
