import { describe, expect, it } from 'vitest';
import { checkAnswer, formatReport, runFuzz } from '../../bench/fuzz.js';

/**
 * The fuzz run, short: every POST route gets schema-generated, mutated and raw bodies with
 * wrong content types; no 5xx but the spec's, no error body without its code, no crash,
 * bounded RSS, and every list endpoint still readable. `npm run fuzz` is the full run (100,000 inputs).
 */
describe('fuzz (short)', () => {
  it('counts an error body without its code, or with a code of another status, as a failure', () => {
    const route = '/api/v1/webhooks/alerts';
    expect(checkAnswer(route, 400, '{"detail":"x","code":"bad_body"}')).toBeUndefined();
    expect(checkAnswer(route, 400, '{"detail":"x"}')).toMatch(/without a catalog code/);
    expect(checkAnswer(route, 400, '{"detail":"x","code":"made_up"}')).toMatch(/catalog code/);
    expect(checkAnswer(route, 404, '{"detail":"x","code":"bad_body"}')).toMatch(/answers 400/);
  });

  it('answers 2,000 generated inputs without an unexpected 5xx or crash', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 1);
    const report = await runFuzz({ inputs: 2000, seed });
    expect(report.failures, formatReport(report)).toEqual([]);
    expect(report.inputs).toBe(2000);
    for (const [route, stats] of report.routes) expect(stats.inputs, route).toBeGreaterThan(0);
    expect(report.checked.filter((line) => line.includes('(')).length).toBe(6);
  }, 60_000);
});
