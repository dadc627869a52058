import { type Static, Type } from 'typebox';
import { ConfigError } from './config/env-variable.js';
import { MIN_SECRET_LENGTH, weakSecrets } from './config/secret-strength.js';
import { configVariables } from './config/variables.js';

export type { DatabaseConfig } from './config/database-url.js';
export { ConfigError } from './config/env-variable.js';
export { APP_ENVS, type AppEnv, configVariables } from './config/variables.js';

type Variables = typeof configVariables;
type FieldSchemas = { [Field in keyof Variables]: Variables[Field]['schema'] };

function fieldSchemas(variables: Variables): FieldSchemas {
  const entries = Object.entries(variables).map(([field, { schema }]) => [field, schema]);
  return Object.fromEntries(entries) as FieldSchemas;
}

/** The configuration as a TypeBox schema: each field's type and description, from its variable. */
export const configSchema = Type.Object(fieldSchemas(configVariables));
export type Config = Static<typeof configSchema>;

type Env = Record<string, string | undefined>;

/** Parses the environment once; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const values = new Map<string, unknown>();
  const config: Record<string, unknown> = {};
  for (const [field, variable] of Object.entries(configVariables)) {
    // Blank is unset: `FOO=` in a shell or an env file means the default, as it always has.
    const raw = env[variable.name]?.trim() || undefined;
    const value = variable.read(raw, { cwd, values });
    values.set(variable.name, value);
    config[field] = value;
  }
  // Each field's value comes from its own variable's reader, typed by that variable's schema.
  const typed = config as Config;
  const weak = weakSecrets(typed);
  if (typed.appEnv === 'prod' && weak[0] !== undefined) {
    throw new ConfigError(weak[0], `must be at least ${MIN_SECRET_LENGTH} characters in prod`);
  }
  // A bound takes out a cost the service owes (its follow-ups, its records): never in service.
  if (typed.appEnv === 'prod' && typed.benchBound !== undefined) {
    throw new ConfigError('BENCH_BOUND', 'is for the bench only and must be unset in prod');
  }
  return typed;
}

/** For the entry points: one line naming the bad variable, then exit 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Invalid configuration: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
