/**
 * CONTRACT, Hostile clients: at most `total` live streams at once, and `perClient` for one
 * client address. A slot is taken before the stream opens and given back when it ends.
 */
export function createStreamSlots(total: number, perClient: number) {
  const byClient = new Map<string, number>();
  let taken = 0;
  return {
    /** A release function, or undefined when either limit is reached. */
    take(client: string): (() => void) | undefined {
      const held = byClient.get(client) ?? 0;
      if (taken >= total || held >= perClient) return undefined;
      taken++;
      byClient.set(client, held + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        taken--;
        const left = (byClient.get(client) ?? 1) - 1;
        if (left === 0) byClient.delete(client);
        else byClient.set(client, left);
      };
    },
  };
}
