import net from 'node:net';
import path from 'node:path';
import { type Static, type TOptional, type TSchema, Type } from 'typebox';

/** A bad value. Its message is the one line the start stops with: `<VARIABLE>: <problem>`. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

/** What a variable may look at besides its own value. */
export interface ReadContext {
  /** Relative paths resolve against it. */
  readonly cwd: string;
  /** The values read so far, by variable name: the schema's order is the order of reading. */
  readonly values: ReadonlyMap<string, unknown>;
}

export type VariableKind =
  | 'string'
  | 'path'
  | 'url'
  | 'port'
  | 'boolean'
  | 'enum'
  | 'positive integer'
  | 'milliseconds'
  | 'operator keys'
  | 'comma list'
  | 'address ranges'
  | 'bearer tokens'
  | 'time zone'
  | 'database url';

/** Unset is an error while another variable has this value. */
export interface Condition {
  readonly name: string;
  readonly equals: string;
}

export interface VariableDoc {
  /** The README's wording (test/foundation/config-readme.test.ts holds the two together). */
  readonly description: string;
  /** The README's default column, when the default alone does not say it. */
  readonly documentedDefault?: string;
}

export interface VariableOptions extends VariableDoc {
  /** Used when the variable is unset or blank, written as one would write it in the environment. */
  readonly default?: string;
  readonly requiredWhen?: Condition;
}

type ValueOf<S extends TSchema> = S extends TOptional<TSchema> ? Static<S> | undefined : Static<S>;

/** One environment variable: its documentation, its field's type in `Config`, and its reader. */
export interface EnvVariable<S extends TSchema = TSchema> extends VariableOptions {
  readonly name: string;
  readonly kind: VariableKind;
  /** The type of its field in `Config`; optional exactly when the variable has no default. */
  readonly schema: S;
  /** `raw` is the trimmed value, undefined when unset or blank; throws a ConfigError naming it. */
  read(raw: string | undefined, context: ReadContext): ValueOf<S>;
}

type Field<S extends TSchema, O extends VariableOptions> = O extends { readonly default: string }
  ? S
  : TOptional<S>;

type Parse<S extends TSchema> = (raw: string, context: ReadContext) => Static<S>;

/** Builds a variable of a kind: the default applies before parsing, so defaults are checked too. */
export function variable<S extends TSchema, O extends VariableOptions>(
  name: string,
  kind: VariableKind,
  schema: S,
  options: O,
  parse: Parse<S>,
): EnvVariable<Field<S, O>> {
  const { description, documentedDefault, default: fallback, requiredWhen } = options;
  const built: EnvVariable = {
    name,
    kind,
    description,
    documentedDefault,
    default: fallback,
    requiredWhen,
    schema: fallback === undefined ? Type.Optional(schema) : schema,
    read(raw, context) {
      const value = raw ?? fallback;
      if (value !== undefined) return parse(value, context);
      if (requiredWhen && context.values.get(requiredWhen.name) === requiredWhen.equals) {
        throw new ConfigError(name, `is required when ${requiredWhen.name}=${requiredWhen.equals}`);
      }
      return undefined;
    },
  };
  // `Field` follows `fallback` exactly as the line choosing `schema` above does.
  return built as EnvVariable<Field<S, O>>;
}

export function text<O extends VariableOptions>(name: string, options: O) {
  return variable(
    name,
    'string',
    Type.String({ description: options.description }),
    options,
    (raw) => raw,
  );
}

/** Resolved against the working directory. */
export function localPath<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.String({ description: options.description });
  return variable(name, 'path', schema, options, (raw, { cwd }) => path.resolve(cwd, raw));
}

/** Kept as written, less any trailing slashes. */
export function url<O extends VariableOptions>(
  name: string,
  protocols: readonly string[],
  options: O,
) {
  const schema = Type.String({ description: options.description, format: 'uri' });
  return variable(name, 'url', schema, options, (raw) => {
    let parsed: URL;
    try {
      parsed = new URL(raw);
    } catch {
      throw new ConfigError(name, 'is not a parsable URL');
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
    return raw.replace(/\/+$/, '');
  });
}

/** A whole number within [minimum, maximum]; the message names the range and the value. */
function boundedInteger<O extends VariableOptions>(
  name: string,
  kind: VariableKind,
  bounds: { minimum: number; maximum: number; what: string },
  options: O,
) {
  const { minimum, maximum, what } = bounds;
  const schema = Type.Integer({ minimum, maximum, description: options.description });
  return variable(name, kind, schema, options, (raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < minimum || value > maximum) {
      throw new ConfigError(name, `must be ${what} from ${minimum} to ${maximum}, got "${raw}"`);
    }
    return value;
  });
}

export function port<O extends VariableOptions>(name: string, options: O) {
  const bounds = { minimum: 0, maximum: 65535, what: 'a port number' };
  return boundedInteger(name, 'port', bounds, options);
}

export function positiveInteger<O extends VariableOptions>(name: string, max: number, options: O) {
  const bounds = { minimum: 1, maximum: max, what: 'a whole number' };
  return boundedInteger(name, 'positive integer', bounds, options);
}

export function milliseconds<O extends VariableOptions>(
  name: string,
  max: number,
  options: O,
  min = 1,
) {
  const bounds = { minimum: min, maximum: max, what: 'a whole number of milliseconds' };
  return boundedInteger(name, 'milliseconds', bounds, options);
}

const TRUE = ['true', '1', 'yes', 'on'];
const FALSE = ['false', '0', 'no', 'off'];

export function flag<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.Boolean({ description: options.description });
  return variable(name, 'boolean', schema, options, (raw) => {
    const value = raw.toLowerCase();
    if (TRUE.includes(value)) return true;
    if (FALSE.includes(value)) return false;
    throw new ConfigError(name, `must be true or false, got "${value}"`);
  });
}

export function oneOf<const T extends string[], O extends VariableOptions>(
  name: string,
  allowed: readonly [...T],
  options: O,
) {
  const schema = Type.Enum(allowed, { description: options.description });
  const isAllowed = (value: string): value is T[number] => allowed.includes(value);
  return variable(name, 'enum', schema, options, (raw) => {
    if (isAllowed(raw)) return raw;
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  });
}

/** `id1:key1,id2:key2`; blank entries are skipped. */
export function operatorKeys<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.Unsafe<Map<string, string>>(
    Type.Record(Type.String(), Type.String(), { description: options.description }),
  );
  return variable(name, 'operator keys', schema, options, (raw) => {
    const keys = new Map<string, string>();
    for (const pair of raw.split(',')) {
      const trimmed = pair.trim();
      if (!trimmed) continue;
      const colon = trimmed.indexOf(':');
      if (colon <= 0 || colon === trimmed.length - 1) {
        throw new ConfigError(name, 'must be id1:key1,id2:key2');
      }
      keys.set(trimmed.slice(0, colon), trimmed.slice(colon + 1));
    }
    return keys;
  });
}

/** Comma-separated; entries trimmed, blank ones dropped. */
export function commaList<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.Array(Type.String(), { description: options.description });
  return variable(name, 'comma list', schema, options, (raw) =>
    raw
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  );
}

/**
 * Comma-separated IP addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`). An entry that is
 * neither stops the start, naming it: a mistyped proxy would otherwise be trusted by nobody,
 * or a host name silently by nothing.
 */
export function addressRanges<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.Array(Type.String(), { description: options.description });
  return variable(name, 'address ranges', schema, options, (raw) => {
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const [address = '', prefix, ...rest] = entry.split('/');
      const family = net.isIP(address);
      const bits = family === 6 ? 128 : 32;
      const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
      if (family === 0 || !prefixOk || rest.length > 0) {
        throw new ConfigError(name, `"${entry}" is not an IP address or CIDR range`);
      }
    }
    return entries;
  });
}

/**
 * Comma-separated tokens a sender puts after `Authorization: Bearer `. An entry no request
 * could carry (a space inside, a character outside printable ASCII, over 4096 characters)
 * would never match, so it stops the start rather than failing every delivery quietly.
 * The message names the entry's position, never its value.
 */
export function bearerTokens<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.Array(Type.String(), { description: options.description });
  return variable(name, 'bearer tokens', schema, options, (raw) => {
    const entries = raw.split(',').map((entry) => entry.trim());
    entries.forEach((token, index) => {
      if (token !== '' && !/^[\x21-\x7e]{1,4096}$/.test(token)) {
        throw new ConfigError(
          name,
          `entry ${index + 1} must be 1 to 4096 printable ASCII characters with no space`,
        );
      }
    });
    return entries.filter(Boolean);
  });
}

/** An IANA zone this runtime's Intl knows. */
export function timeZone<O extends VariableOptions>(name: string, options: O) {
  const schema = Type.String({ description: options.description });
  return variable(name, 'time zone', schema, options, (zone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
    } catch {
      throw new ConfigError(name, `is not a known time zone: "${zone}"`);
    }
    return zone;
  });
}
