import path from 'node:path';
import { type Static, Type } from 'typebox';
import { ConfigError, type EnvVariable, type VariableDoc } from './env-variable.js';

const SqliteDatabase = Type.Object({ kind: Type.Literal('sqlite'), file: Type.String() });
const PostgresDatabase = Type.Object({
  kind: Type.Literal('postgres'),
  url: Type.String(),
  schema: Type.Optional(Type.String()),
});

const DatabaseSchema = Type.Union([SqliteDatabase, PostgresDatabase]);
export type DatabaseConfig = Static<typeof DatabaseSchema>;

interface DatabaseOptions extends VariableDoc {
  /** The variable naming the directory whose `app.db` is used when this one is unset. */
  readonly sqliteDirectory: string;
}

/** `postgres://…` (with our `?schema=`), `sqlite:<path>`, or unset: `app.db` in a directory. */
export function databaseUrl(
  name: string,
  options: DatabaseOptions,
): EnvVariable<typeof DatabaseSchema> {
  const { description, documentedDefault, sqliteDirectory } = options;
  return {
    name,
    kind: 'database url',
    description,
    documentedDefault,
    schema: Type.Union([SqliteDatabase, PostgresDatabase], { description }),
    read(raw, { values }) {
      if (raw === undefined) {
        const directory = values.get(sqliteDirectory);
        if (typeof directory !== 'string') {
          throw new Error(`${sqliteDirectory} must be read before ${name}`);
        }
        return { kind: 'sqlite', file: path.join(directory, 'app.db') };
      }
      return parseDatabaseUrl(name, raw);
    },
  };
}

function parseDatabaseUrl(name: string, raw: string): DatabaseConfig {
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!file) throw new ConfigError(name, 'sqlite: needs a file path');
    return { kind: 'sqlite', file };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a parsable URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, `must be postgres://… or sqlite:<path>, got "${url.protocol}"`);
  }
  // `?schema=` is ours, not libpq's: it scopes every table to one PostgreSQL schema.
  const schema = url.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(name, 'schema must be a lower-case identifier');
  }
  url.searchParams.delete('schema');
  return { kind: 'postgres', url: url.toString(), schema };
}
