/** Runs a command's `main`, exits with its code, and reports a crash as exit 1 under `name`. */
export function exitWith(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(`${name} failed: ${error.stack ?? error.message}`);
      process.exit(1);
    },
  );
}
