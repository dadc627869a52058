/**
 * `record[key]` for a key that came from outside: only the record's own entries answer, so
 * `constructor`, `__proto__` or `toString` find nothing instead of Object.prototype's members.
 */
export function ownValue<V>(record: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * `record[key] = value` for a key that came from outside: `__proto__` becomes an ordinary
 * entry (as JSON.parse makes it) instead of replacing the record's prototype and vanishing.
 */
export function setOwn<V>(record: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(record, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
