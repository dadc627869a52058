/** Talking to the service: the console token, the operator, and JSON calls. */
import type { ErrorCode } from './api-types';

const TOKEN_KEY = 'console-token';
const OPERATOR_KEY = 'console-operator';

export type AccessState = 'open' | 'needs-token' | 'prod-closed';

type Listener = () => void;

/** A value views can watch: a tiny observable, enough for a handful of globals. */
export class Watched<T> {
  private listeners = new Set<Listener>();
  constructor(private current: T) {}
  get value(): T {
    return this.current;
  }
  set(next: T) {
    if (Object.is(next, this.current)) return;
    this.current = next;
    for (const listener of [...this.listeners]) listener();
  }
  watch(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const access = new Watched<AccessState>('open');
/** Bumped on sign-in so that views and the feed load again with the token. */
export const signInCount = new Watched(0);

export function consoleToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setConsoleToken(token: string | null) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  access.set('open');
  signInCount.set(signInCount.value + 1);
}

export interface Operator {
  id: string;
  key: string;
}

export const operator = new Watched<Operator | null>(readOperator());

function readOperator(): Operator | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(OPERATOR_KEY) ?? 'null') as Operator | null;
    return value && typeof value.id === 'string' && typeof value.key === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function setOperator(next: Operator | null) {
  if (next) sessionStorage.setItem(OPERATOR_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(OPERATOR_KEY);
  operator.set(next);
}

export function authHeaders(): Record<string, string> {
  const token = consoleToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** A refused call: the service's words for people (`detail`) and its stable `code`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: ErrorCode | undefined,
  ) {
    super(detail);
  }
}

/** Any answer of the service may say the token is missing or the read API is closed. */
export function noteAccess(status: number, code: ErrorCode | undefined) {
  if (status === 401 && code !== 'operator_invalid') access.set('needs-token');
  if (status === 403 && code === 'read_api_closed') access.set('prod-closed');
}

/** An error answer's code, or undefined when the body is not the service's error shape. */
export function errorCodeOf(body: unknown): ErrorCode | undefined {
  const code = (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (code as ErrorCode) : undefined;
}

async function problemOf(response: Response): Promise<{ detail: string; code?: ErrorCode }> {
  try {
    const body = (await response.json()) as { detail?: unknown; message?: unknown };
    const code = errorCodeOf(body);
    if (typeof body.detail === 'string') return { detail: body.detail, code };
    if (typeof body.message === 'string') return { detail: body.message, code };
  } catch {
    // not JSON
  }
  return { detail: `${response.status} ${response.statusText}` };
}

export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...authHeaders(),
      ...init.headers,
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  if (!response.ok) {
    const problem = await problemOf(response);
    noteAccess(response.status, problem.code);
    throw new ApiError(response.status, problem.detail, problem.code);
  }
  // Alertmanager's API answers an expired silence with 200 and an empty body.
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
