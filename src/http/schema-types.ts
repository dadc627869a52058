import { Type } from 'typebox';

/** A string limited to `values`, as a plain JSON-schema `enum` (one readable error, not anyOf). */
export function StringEnum<T extends string>(
  values: readonly T[],
  options: { default?: T; description?: string } = {},
) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/** An object of free-form values, or null. */
export const FreeFormMap = Type.Unsafe<Record<string, unknown> | null>({
  type: ['object', 'null'],
  additionalProperties: true,
});
