/** Confidence 0 to 1 as a whole percentage; out-of-range or non-numeric values are clamped. */
export function confidencePercent(confidence: number): number {
  if (!Number.isFinite(confidence)) return 0;
  return Math.round(Math.min(1, Math.max(0, confidence)) * 100);
}
