import { execFileSync } from 'node:child_process';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type Config,
  ConfigError,
  configSchema,
  configVariables,
  type DatabaseConfig,
  loadConfig,
} from '../../src/config.js';
import { serviceEntry } from '../helpers/service-entry.js';

function problemOf(env: Record<string, string>): string {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('configuration (CONTRACT, Configuration)', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      appEnv: 'development',
      dataDir: '/srv/app/var',
      database: { kind: 'sqlite', file: '/srv/app/var/app.db' },
      redisUrl: undefined,
      repairExecutor: 'dry-run',
      chatApiBase: 'https://api.telegram.org',
      chatWhitelist: [],
      chatPolling: true,
      analyzer: 'rules',
      readbackDir: '/srv/app/readbacks',
      inventoryRoot: '/srv/app',
      displayTz: 'Asia/Taipei',
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        PORT: '9000',
        HOST: '0.0.0.0',
        APP_ENV: 'prod',
        DATABASE_URL: 'postgres://u@db:5432/app?schema=tenant_a',
        REDIS_URL: 'redis://cache:6379',
        // CONTRACT, Hostile clients: prod takes keys of 16 characters or more.
        OPERATOR_KEYS: 'alice:k1-0123456789abcdef, bob:k2-0123456789abcdef',
        CHAT_WHITELIST: '1, 2,3',
        CHAT_POLLING: 'false',
        REPAIR_EXECUTOR: 'kubectl',
        KUBECTL_CONTEXT: 'prod',
        DATABASE_POOL: '4',
      },
      '/srv',
    );
    expect(config.port).toBe(9000);
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db:5432/app',
      schema: 'tenant_a',
    });
    expect([...config.operatorKeys]).toEqual([
      ['alice', 'k1-0123456789abcdef'],
      ['bob', 'k2-0123456789abcdef'],
    ]);
    expect(config.chatWhitelist).toEqual(['1', '2', '3']);
    expect(config.chatPolling).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database).toEqual({
      kind: 'sqlite',
      file: '/tmp/x.db',
    });
  });

  it.each([
    [{ APP_ENV: 'production' }, 'APP_ENV'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: '::::' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ CHAT_POLLING: 'maybe' }, 'CHAT_POLLING'],
    [{ DISPLAY_TZ: 'Mars/Olympus' }, 'DISPLAY_TZ'],
    [{ OPERATOR_KEYS: 'nokey' }, 'OPERATOR_KEYS'],
    [{ REPAIR_EXECUTOR: 'kubectl' }, 'KUBECTL_CONTEXT'],
    [{ ANALYZER: 'openai' }, 'LLM_BASE_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
  ])('rejects %j naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^${variable}: `));
  });

  it.each([
    [{ PORT: '65536' }, 'PORT: must be a port number from 0 to 65535, got "65536"'],
    [
      { JOB_LEASE_MS: '500' },
      'JOB_LEASE_MS: must be a whole number of milliseconds from 1000 to 600000, got "500"',
    ],
    [{ REDIS_URL: 'http://cache' }, 'REDIS_URL: must use redis: or rediss:, got "http:"'],
    [{ ERRTRACKER_API_BASE: 'nope' }, 'ERRTRACKER_API_BASE: is not a parsable URL'],
    [{ CHAT_POLLING: 'MAYBE' }, 'CHAT_POLLING: must be true or false, got "maybe"'],
    [
      { DATABASE_URL: 'mysql://x' },
      'DATABASE_URL: must be postgres://… or sqlite:<path>, got "mysql:"',
    ],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL: sqlite: needs a file path'],
    [
      { DATABASE_URL: 'postgres://h/db?schema=Tenant' },
      'DATABASE_URL: schema must be a lower-case identifier',
    ],
    [{ OPERATOR_KEYS: 'alice:' }, 'OPERATOR_KEYS: must be id1:key1,id2:key2'],
    // A receiver token no Authorization header could carry never matches: refused at start,
    // named by its position only (the value is a secret).
    [
      { RECEIVER_TOKENS: 'good-token,has space' },
      'RECEIVER_TOKENS: entry 2 must be 1 to 4096 printable ASCII characters with no space',
    ],
    [
      { RECEIVER_TOKENS: 'a,,b has-a-space' },
      'RECEIVER_TOKENS: entry 3 must be 1 to 4096 printable ASCII characters with no space',
    ],
    [
      { RECEIVER_TOKENS: 'tökén' },
      'RECEIVER_TOKENS: entry 1 must be 1 to 4096 printable ASCII characters with no space',
    ],
    [
      { RECEIVER_TOKENS: `ok,ok,${'x'.repeat(4097)}` },
      'RECEIVER_TOKENS: entry 3 must be 1 to 4096 printable ASCII characters with no space',
    ],
    [{ DISPLAY_TZ: 'Mars/Olympus' }, 'DISPLAY_TZ: is not a known time zone: "Mars/Olympus"'],
    [
      { ANALYSIS_MAX_IN_FLIGHT: '0' },
      'ANALYSIS_MAX_IN_FLIGHT: must be a whole number from 1 to 1000000, got "0"',
    ],
    [
      { BODY_LIMIT_BYTES: '1.5' },
      'BODY_LIMIT_BYTES: must be a whole number from 1 to 1073741824, got "1.5"',
    ],
    [
      { READBACK_PROBE_TIMEOUT_MS: '60001' },
      'READBACK_PROBE_TIMEOUT_MS: must be a whole number of milliseconds from 1 to 60000, got "60001"',
    ],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ],
    [{ REPAIR_EXECUTOR: 'kubectl' }, 'KUBECTL_CONTEXT: is required when REPAIR_EXECUTOR=kubectl'],
    [{ ANALYZER: 'openai' }, 'LLM_BASE_URL: is required when ANALYZER=openai'],
    // Read in schema order: the first bad variable is the one named.
    [
      { PORT: 'eighty', REPAIR_EXECUTOR: 'kubectl' },
      'KUBECTL_CONTEXT: is required when REPAIR_EXECUTOR=kubectl',
    ],
  ])('words %j as %s', (env, message) => {
    expect(problemOf(env)).toBe(message);
  });

  it('refuses a bench bound in prod, and takes one elsewhere', () => {
    expect(() => loadConfig({ APP_ENV: 'prod', BENCH_BOUND: 'follow-up' })).toThrow(
      'BENCH_BOUND: is for the bench only and must be unset in prod',
    );
    expect(loadConfig({ APP_ENV: 'staging', BENCH_BOUND: 'follow-up' }).benchBound).toBe(
      'follow-up',
    );
  });

  it('takes receiver tokens of any printable ASCII up to 4096 characters', () => {
    const longest = 'x'.repeat(4096);
    const config = loadConfig({ RECEIVER_TOKENS: ` a+/=~._-9 , ${longest} ,` }, '/srv');
    expect(config.receiverTokens).toEqual(['a+/=~._-9', longest]);
  });

  it('treats blank as unset and trims values', () => {
    const config = loadConfig(
      { PORT: '  ', HOST: ' 0.0.0.0 ', WEBHOOK_SECRET: '', CHAT_API_BASE: 'http://bot.test//' },
      '/srv',
    );
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      webhookSecret: undefined,
      chatApiBase: 'http://bot.test',
    });
    expect(loadConfig({ REPAIR_EXECUTOR: 'kubectl', KUBECTL_CONTEXT: 'prod' }).kubectlContext).toBe(
      'prod',
    );
  });

  it('has one schema field per variable, each variable named once', () => {
    const config = loadConfig({}, '/srv');
    expect(Object.keys(config).sort()).toEqual(Object.keys(configSchema.properties).sort());
    expect(Object.keys(configVariables).sort()).toEqual(Object.keys(config).sort());
    const names = Object.values(configVariables).map((variable) => variable.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('types Config from the schema', () => {
    expectTypeOf<Config['database']>().toEqualTypeOf<DatabaseConfig>();
    expectTypeOf<DatabaseConfig>().toEqualTypeOf<
      { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string }
    >();
    expectTypeOf<Config['operatorKeys']>().toEqualTypeOf<Map<string, string>>();
    expectTypeOf<Config['chatWhitelist']>().toEqualTypeOf<string[]>();
    expectTypeOf<Config['appEnv']>().toEqualTypeOf<'development' | 'test' | 'staging' | 'prod'>();
    expectTypeOf<Config['repairExecutor']>().toEqualTypeOf<'dry-run' | 'kubectl'>();
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['chatPolling']>().toEqualTypeOf<boolean>();
    expectTypeOf<Pick<Config, 'redisUrl'>>().toEqualTypeOf<{ redisUrl?: string }>();
  });

  it('stops the start with one line naming the variable', () => {
    let output = '';
    try {
      execFileSync(process.execPath, serviceEntry('server'), {
        env: { ...process.env, APP_ENV: 'production', DATABASE_URL: '', REDIS_URL: '' },
        stdio: 'pipe',
      });
    } catch (error) {
      const failed = error as { status: number; stderr: Buffer };
      expect(failed.status).toBe(1);
      output = failed.stderr.toString().trim();
    }
    expect(output).toBe(
      'Invalid configuration: APP_ENV: must be one of development, test, staging, prod, got "production"',
    );
  });
});
