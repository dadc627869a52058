import { InvalidReadbackData } from './readback-errors.js';

/**
 * Reading the fields a computation needs out of a committed document. The spec does not show
 * these documents' inner fields, so each computation names the few it relies on; a wrong type
 * there is invalid data (the row's 500), anything else in the document is carried along.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class DocumentReader {
  constructor(readonly readback: string) {}

  fail(problem: string): never {
    throw new InvalidReadbackData(this.readback, problem);
  }

  /** A list of objects; absent is an empty list unless `required`. */
  objects(holder: Record<string, unknown>, key: string, required = false) {
    const value = holder[key];
    if (value === undefined && !required) return [];
    if (!Array.isArray(value) || !value.every(isRecord)) {
      return this.fail(`"${key}" must be a list of objects`);
    }
    return value;
  }

  object(holder: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
    const value = holder[key];
    if (value === undefined) return undefined;
    if (!isRecord(value)) return this.fail(`"${key}" must be an object`);
    return value;
  }

  text(holder: Record<string, unknown>, key: string, where = key): string {
    const value = holder[key];
    if (typeof value !== 'string' || value.trim() === '') {
      return this.fail(`"${where}" must be a non-empty string`);
    }
    return value;
  }

  optionalText(holder: Record<string, unknown>, key: string): string | undefined {
    return holder[key] === undefined ? undefined : this.text(holder, key);
  }

  texts(holder: Record<string, unknown>, key: string, where = key): string[] {
    const value = holder[key];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      return this.fail(`"${where}" must be a list of strings`);
    }
    return value as string[];
  }

  number(holder: Record<string, unknown>, key: string, fallback?: number): number {
    const value = holder[key];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      return this.fail(`"${key}" must be a number`);
    }
    return value;
  }

  boolean(holder: Record<string, unknown>, key: string, fallback: boolean): boolean {
    const value = holder[key];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') return this.fail(`"${key}" must be true or false`);
    return value;
  }
}
