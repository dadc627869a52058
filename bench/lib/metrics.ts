/** Sums a Prometheus counter from the service's /metrics by one label, e.g. outcome. */
export async function counterByLabel(
  baseUrl: string,
  metric: string,
  label: string,
): Promise<Record<string, number>> {
  const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  const sums: Record<string, number> = {};
  const line = new RegExp(`^${metric}(?:\\{([^}]*)\\})?\\s+(\\S+)$`, 'gm');
  for (const match of text.matchAll(line)) {
    const labels = match[1] ?? '';
    const value = new RegExp(`${label}="([^"]*)"`).exec(labels)?.[1] ?? '';
    sums[value] = (sums[value] ?? 0) + Number(match[2]);
  }
  return sums;
}

export function total(sums: Record<string, number>): number {
  return Object.values(sums).reduce((a, b) => a + b, 0);
}

export function describeCounts(sums: Record<string, number>): string {
  const parts = Object.entries(sums).map(([key, value]) => `${key || '(none)'} ${value}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
