import type { Child } from './processes.js';

/** Something a run sends load to: a child process answering HTTP on loopback. */
export interface Target {
  baseUrl: string;
  child: Child;
  /** Which readiness URL answered, for the report. */
  readyVia: string;
  stop(): Promise<string>;
}
