import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

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
        OPERATOR_KEYS: 'alice:k1, bob:k2',
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
      ['alice', 'k1'],
      ['bob', 'k2'],
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

  it('stops the start with one line naming the variable', () => {
    let output = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', path.resolve('src/server.ts')], {
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
