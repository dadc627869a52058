import type { FastifyBaseLogger } from 'fastify';
import type { BusPort } from '../../ports/bus.js';
import { taskTopic } from './progress-events.js';
import type { TaskRow } from './task-views.js';

/** One event as heard on the bus: its number (null for a message without one) and its text. */
export interface HubMessage {
  seq: number | null;
  data: string;
  /** The SSE frame, encoded once for every stream it goes to. */
  frame: Buffer;
}

export interface HubListener {
  event(message: HubMessage): void;
  /** The task as read once after each event (spec: "After each one it re-reads the task"). */
  state(task: TaskRow | undefined): void;
}

export interface TaskEventHub {
  /** Resolves once the bus subscription is live; the returned function leaves at once. */
  join(taskId: string, listener: HubListener): Promise<() => void>;
}

/** spec, Analysis tasks: "Each event is a `data: <json>` line followed by a blank line". */
export function sseFrame(seq: number | null, data: string): string {
  return seq === null ? `data: ${data}\n\n` : `id: ${seq}\ndata: ${data}\n\n`;
}

function parse(raw: string): HubMessage {
  let seq: number | null = null;
  try {
    const value = (JSON.parse(raw) as { seq?: unknown } | null)?.seq;
    if (typeof value === 'number' && Number.isSafeInteger(value)) seq = value;
  } catch {
    // Not ours: forwarded as it is, without an id.
  }
  // A raw line break would end the `data:` line early; JSON from JSON.stringify has none.
  const data = raw.replace(/\r?\n/g, ' ');
  return { seq, data, frame: Buffer.from(sseFrame(seq, data)) };
}

interface Topic {
  listeners: Set<HubListener>;
  live: Promise<() => Promise<void>>;
}

/**
 * One bus subscription per task per process, however many streams follow it: a message is
 * parsed once, framed once, and the task is re-read once for all of them. The subscription
 * ends when the last stream leaves.
 */
export function createTaskEventHub(
  bus: BusPort,
  readTask: (taskId: string) => Promise<TaskRow | undefined>,
  log: FastifyBaseLogger,
): TaskEventHub {
  const topics = new Map<string, Topic>();

  function heard(taskId: string, topic: Topic, raw: string) {
    const message = parse(raw);
    for (const listener of [...topic.listeners]) listener.event(message);
    // Started after the event arrived, and the event was recorded with its change before it
    // was published, so this read sees at least the state that event reports.
    readTask(taskId).then(
      (task) => {
        for (const listener of [...topic.listeners]) listener.state(task);
      },
      (error) => log.warn({ err: error, task: taskId }, 'analysis stream: task re-read failed'),
    );
  }

  return {
    async join(taskId, listener) {
      let topic = topics.get(taskId);
      if (!topic) {
        const created: Topic = { listeners: new Set(), live: Promise.resolve(async () => {}) };
        created.live = bus.subscribe(taskTopic(taskId), (raw) => heard(taskId, created, raw));
        topics.set(taskId, created);
        topic = created;
      }
      const joined = topic;
      joined.listeners.add(listener);
      const leave = () => {
        if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
        if (topics.get(taskId) === joined) topics.delete(taskId);
        joined.live.then((unsubscribe) => unsubscribe()).catch(() => undefined);
      };
      try {
        await joined.live;
      } catch (error) {
        leave();
        throw error;
      }
      return leave;
    },
  };
}
