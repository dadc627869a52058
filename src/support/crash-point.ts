/**
 * Fault injection for the crash tests (CONTRACT, Under races, crashes and abuse: "a crash at
 * any instant leaves no half-done state"): with NODE_ENV `test` and TEST_CRASH_AT naming a
 * step, the process kills itself with SIGKILL, as `kill -9` would, when it reaches that step.
 * Read once at start; otherwise each step costs one comparison.
 */
const crashAt = process.env.NODE_ENV === 'test' ? process.env.TEST_CRASH_AT : undefined;

/** The steps a crash test may stop the process at. */
export type CrashStep = 'resolve:before-approval-expiry' | 'resolve:after-commit';

export function crashPoint(step: CrashStep): void {
  if (crashAt === step) process.kill(process.pid, 'SIGKILL');
}
