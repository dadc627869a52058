/** An append-only log of entries with Redis-style ids (`<ms>-<seq>`). */
export interface StreamEntry {
  id: string;
  fields: Record<string, string>;
  /**
   * Set by a group read on an entry delivered to the group before (claimed back from a
   * consumer that did not acknowledge it): only such an entry may have been handled already.
   * A Redis that lost its group's state (a failover, a restart without persistence) delivers
   * handled entries again unmarked; consumers keep their own check in the transaction that
   * records the outcome, so such an entry is never counted twice.
   */
  redelivered?: true;
}

export interface RangeOptions {
  /** Newest first when true (XREVRANGE), oldest first otherwise. */
  newestFirst?: boolean;
  /** Exclusive bound: entries strictly after (oldest first) or before (newest first) this id. */
  from?: string;
  limit: number;
}

export interface ReadGroupOptions {
  count: number;
  /** How long to wait for new entries when none are ready; 0 returns at once. */
  blockMs: number;
  /** Entries delivered to any consumer but not acknowledged for this long are delivered again. */
  claimIdleMs: number;
}

/** What a consumer group still owes: entries never delivered to it plus those unacknowledged. */
export interface StreamBacklog {
  count: number;
  /** The ms part of the oldest such entry's id (when it was appended); null when none. */
  oldestMs: number | null;
}

export interface StreamPort {
  /**
   * Appends one entry and trims the stream to about `maxLen` entries; resolves to its id.
   * Trimming never removes an entry that some consumer group has not acknowledged yet.
   */
  append(stream: string, fields: Record<string, string>, maxLen: number): Promise<string>;
  range(stream: string, options: RangeOptions): Promise<StreamEntry[]>;
  length(stream: string): Promise<number>;
  /** Creates the consumer group if missing, positioned before the first entry. */
  ensureGroup(stream: string, group: string): Promise<void>;
  /** Stale unacknowledged entries first, then entries never delivered to the group. */
  readGroup(
    stream: string,
    group: string,
    consumer: string,
    options: ReadGroupOptions,
  ): Promise<StreamEntry[]>;
  ack(stream: string, group: string, ids: string[]): Promise<void>;
  /** The group's backlog; a group that does not exist owes nothing. */
  backlog(stream: string, group: string): Promise<StreamBacklog>;
  close(): Promise<void>;
}
