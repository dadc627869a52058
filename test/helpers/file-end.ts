/**
 * What a test file started and must stop when it ends: apps, stand-ins, processes, temp
 * directories. Run by test/setup/file-end.ts after each file's last test, newest first, so
 * an app closes before the stand-ins it talks to. Helpers register here rather than with a
 * module-level `afterAll`, which would run for the first file only where files share the
 * module graph (the fast project).
 */
const toStop: Array<() => unknown> = [];

export function atFileEnd(stop: () => unknown): void {
  toStop.push(stop);
}

export async function stopAtFileEnd(): Promise<void> {
  for (const stop of toStop.splice(0).reverse()) await stop();
}
