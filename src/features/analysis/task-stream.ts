import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { STREAM_HEADERS } from '../../http/event-stream.js';
import type { Db } from '../../ports/store.js';
import { isFinished } from './analysis-types.js';
import { type HubMessage, sseFrame, type TaskEventHub } from './task-event-hub.js';
import { eventsAfter, findTask } from './task-records.js';
import { statusView, type TaskRow } from './task-views.js';

export interface StreamDeps {
  db: Db;
  hub: TaskEventHub;
  heartbeatMs: number;
  log: FastifyBaseLogger;
}

export interface PreparedStream {
  /** The task as read after subscribing (what the status event reports, unless resuming). */
  task: TaskRow;
  /** True when a reconnecting client already has every event of a finished task. */
  exhausted: boolean;
  /** Starts writing to `raw`; `end` ends the stream (once, whatever ends it first). */
  start(raw: ServerResponse): { end(): void };
  /** Leaves without starting (the task is unknown, or nothing is left to send). */
  abandon(): void;
}

/**
 * One client's stream. It subscribes before reading anything, so no event falls between
 * the read and the subscription: events heard while the stored ones are replayed wait in a
 * buffer, and every event is sent once, in order, by its number. A gap in what the bus
 * delivers (Redis pub/sub drops messages for a moment of disconnection) is filled from the
 * table. Undefined when the task does not exist.
 */
export async function prepareTaskStream(
  deps: StreamDeps,
  taskId: string,
  lastEventId: number | undefined,
): Promise<PreparedStream | undefined> {
  const { db, hub, log } = deps;
  let raw: ServerResponse | undefined;
  let live = false;
  let closed = false;
  let delivered = 0;
  const buffered: HubMessage[] = [];
  let chain = Promise.resolve();
  /** Work queued on `chain` and not yet done; while 0, an in-order event is written at once. */
  let pending = 0;
  let finish: () => void = () => undefined;

  const write = (frame: string | Buffer) => {
    if (!closed) raw?.write(frame);
  };
  const enqueue = (work: () => Promise<void> | void) => {
    pending += 1;
    chain = chain
      .then(() => (closed ? undefined : work()))
      .catch((error) => {
        log.warn({ err: error, task: taskId }, 'analysis stream: ended on an error');
        finish();
      })
      .finally(() => {
        pending -= 1;
      });
  };
  /** Sends the stored events after the last one sent, up to `upTo`. */
  const catchUp = async (upTo?: number) => {
    for (const event of await eventsAfter(db, taskId, delivered, upTo)) {
      write(sseFrame(event.seq, event.data));
      delivered = event.seq;
    }
  };
  const deliver = async (message: HubMessage) => {
    if (message.seq === null) return write(message.frame);
    if (message.seq <= delivered) return;
    if (message.seq > delivered + 1) await catchUp(message.seq - 1);
    write(message.frame);
    delivered = message.seq;
  };
  /** The last event is stored with the final state: send whatever is missing, then end. */
  const endAfter = async (lastSeq: number) => {
    if (lastSeq > delivered) await catchUp(lastSeq);
    finish();
  };

  const leave = await hub.join(taskId, {
    event(message) {
      if (!live) buffered.push(message);
      else if (pending > 0 || (message.seq !== null && message.seq !== delivered + 1)) {
        enqueue(() => deliver(message));
      } else {
        // The common case, hundreds of streams per event: no promise, no closure, one write.
        write(message.frame);
        if (message.seq !== null) delivered = message.seq;
      }
    },
    state(task) {
      if (!live) return;
      if (task && !isFinished(task.state)) return;
      // Usually every event was written already: end at once, without a promise per stream.
      if (pending === 0 && (!task || task.last_event_seq <= delivered)) finish();
      else if (!task) enqueue(finish);
      else enqueue(() => endAfter(task.last_event_seq));
    },
  });
  const task = await findTask(db, taskId).catch((error: unknown) => {
    leave();
    throw error;
  });
  if (!task) {
    leave();
    return undefined;
  }
  // An id from elsewhere (another task, a bogus header) cannot be ahead of this task's events.
  const cursor = Math.min(lastEventId ?? task.last_event_seq, task.last_event_seq);
  return {
    task,
    exhausted:
      lastEventId !== undefined && isFinished(task.state) && cursor === task.last_event_seq,
    abandon: leave,
    start(response) {
      raw = response;
      let heartbeat: NodeJS.Timeout | undefined;
      finish = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        leave();
        response.end();
      };
      response.on('close', finish);
      // A client that left while the task was being read closed before the listener above.
      if (response.destroyed || response.socket?.destroyed !== false) {
        finish();
        return { end: finish };
      }
      response.writeHead(200, STREAM_HEADERS);
      delivered = cursor;
      // spec: "first one event whose data is the task status plus type = status"; its id is
      // where this client stands, so a reconnect resumes from here. A client resuming behind
      // the task's last event gets the missed events first and the status last: sent first,
      // the (newer) status would be followed by older states (CONTRACT: never backwards).
      const behind = cursor < task.last_event_seq;
      if (!behind) write(statusFrame(task, cursor));
      heartbeat = setInterval(() => write(': heartbeat\n\n'), deps.heartbeatMs);
      heartbeat.unref();
      enqueue(async () => {
        await catchUp();
        if (behind) {
          // Re-read after the replay, and send what was stored meanwhile, so the status is
          // exactly as new as the last event before it and older than every live one after.
          const current = (await findTask(db, taskId)) ?? task;
          await catchUp(current.last_event_seq);
          delivered = Math.max(delivered, current.last_event_seq);
          write(statusFrame(current, delivered));
        }
        live = true;
        for (const message of buffered.splice(0)) enqueue(() => deliver(message));
        // Events heard while replaying had no re-read of their own, and a finished task sends
        // no more events: read once more, and end now if the task is over.
        enqueue(async () => {
          const current = await findTask(db, taskId);
          if (!current) finish();
          else if (isFinished(current.state)) await endAfter(current.last_event_seq);
        });
      });
      return { end: finish };
    },
  };
}

function statusFrame(task: TaskRow, id: number): string {
  return sseFrame(id, JSON.stringify({ ...statusView(task), type: 'status' }));
}
