/** Fire-and-forget publish/subscribe on named topics. */
export interface BusPort {
  publish(topic: string, message: string): Promise<void>;
  /** Resolves once the subscription is live; the returned function ends it. */
  subscribe(topic: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
