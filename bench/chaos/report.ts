export interface ChaosScale {
  /** CI's sizes: the same checks on fewer items. */
  short: boolean;
}

/** What one chaos scenario checked and measured, printed as it goes. */
export interface ScenarioReport {
  name: string;
  checks: { what: string; ok: boolean; detail?: string }[];
  figures: { name: string; value: string }[];
  /** Set when the scenario could not run to its end. */
  crashed?: string;
}

export class Scenario {
  readonly report: ScenarioReport;

  constructor(name: string) {
    this.report = { name, checks: [], figures: [] };
    console.log(`\n== ${name}`);
  }

  /** Records and prints one verdict; a failed check fails the run, not the scenario. */
  check(what: string, ok: boolean, detail?: string): boolean {
    this.report.checks.push({ what, ok, ...(detail ? { detail } : {}) });
    console.log(`  ${ok ? '✓' : '✗'} ${what}${detail ? ` (${detail})` : ''}`);
    return ok;
  }

  /** The scenario stopped on an error: recorded, and the run goes on to the next one. */
  crashed(error: unknown): void {
    this.report.crashed = (error as Error).message;
    console.log(`  ✗ crashed: ${(error as Error).stack}`);
  }

  figure(name: string, value: string | number): void {
    const text = typeof value === 'number' ? formatNumber(value) : value;
    this.report.figures.push({ name, value: text });
    console.log(`  · ${name}: ${text}`);
  }
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(2);
}

export function passed(report: ScenarioReport): boolean {
  return report.crashed === undefined && report.checks.every((check) => check.ok);
}
