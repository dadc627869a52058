import { readFileSync } from 'node:fs';

/** The error-tracker webhook bodies under test/fixtures/errtracker, parsed. */
export const FIXTURE_NAMES = [
  'issue-alert-triggered',
  'issue-created',
  'event-python-keyerror',
  'event-node-typeerror',
  'event-java-npe',
  'event-go-nil-pointer',
] as const;

export type FixtureName = (typeof FIXTURE_NAMES)[number];

export function trackerFixture(name: FixtureName): unknown {
  const url = new URL(`../fixtures/errtracker/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as unknown;
}
