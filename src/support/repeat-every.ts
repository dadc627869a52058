/**
 * Runs `work` every `everyMs`, one run at a time (a slow run delays the next instead of
 * overlapping it), its failures logged. The timer does not keep the process alive; `stop`
 * waits for the run in progress.
 */
export function repeatEvery(
  everyMs: number,
  work: () => Promise<unknown>,
  onError: (error: unknown) => void,
  { runNow = false } = {},
): { stop(): Promise<void> } {
  const run = () =>
    work().then(
      () => undefined,
      (error: unknown) => onError(error),
    );
  let running: Promise<void> = runNow ? run() : Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(run);
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
