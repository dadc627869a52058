import { Type } from 'typebox';

/** A string limited to `values`, as a plain JSON-schema `enum` (one readable error, not anyOf). */
export function StringEnum<T extends string>(
  values: readonly T[],
  options: { default?: T; description?: string } = {},
) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/** CONTRACT, Bad input: string fields that identify things are at most 1024 characters. */
export const IDENTIFIER_MAX_LENGTH = 1024;

/**
 * CONTRACT, Hostile clients: identifying fields hold no control characters (U+0000 to
 * U+001F other than tab, and U+007F). One character class, anchored: linear on any input.
 */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u0008\\u000A-\\u001F\\u007F]*$';

/** The schema of an identifying string: capped in length, no control characters. */
export const IDENTIFYING = { maxLength: IDENTIFIER_MAX_LENGTH, pattern: NO_CONTROL_CHARACTERS };

/** A string that names or identifies something (an alert, a namespace, a target, a key). */
export function Identifier(
  options: { minLength?: number; default?: string; description?: string } = {},
) {
  return Type.String({ ...options, ...IDENTIFYING });
}

const keyNames = { propertyNames: IDENTIFYING };

/** A string field that may be null in an answer. */
export const NullableString = Type.Union([Type.String(), Type.Null()]);

/** An object of free-form values, or null; its keys identify, so they are capped. */
export const FreeFormMap = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  additionalProperties: true,
  ...keyNames,
});

/** Label or annotation maps of any value, keys capped like FreeFormMap's. */
export const LabelMap = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  ...keyNames,
});
