import { setTimeout as sleep } from 'node:timers/promises';
import { newAlertSequence } from '../lib/bodies.js';
import { type ChatStandIn, startChatStandIn } from '../lib/chat-stand-in.js';
import type { LoadPlan, LoadSettings } from '../lib/load.js';
import { sendSample } from '../lib/load.js';
import type { RunOutcome } from '../lib/run-spec.js';
import { isDrained, openDrainReader } from '../lib/storm-drain.js';
import {
  type ModeKey,
  modeLabel,
  type OwnLoadRunSpec,
  withOwnService,
} from '../lib/sustained-harness.js';
import { cannon } from '../lib/sustained-load.js';
import type { BenchContext } from './intake-runs.js';
import type { StormVerdict } from './storm-runs.js';

/**
 * CONTRACT, Chat under storms: 10,000 new incidents while the chat lets through what the
 * Bot API lets into a group (about 20 messages a minute) and answers the rest 429 with
 * `retry_after`. What counts: how many messages reach the chat (the waiting cards become a
 * digest; goal under 30), that none is sent during a wait, and how soon every incident is
 * visible in `GET /api/v1/incidents`, which the chat must not hold up.
 */
const ALERTS_PATH = '/api/v1/webhooks/alerts';
const CHAT_STORM_ALERTS = Number(process.env.BENCH_CHAT_STORM_ALERTS || 10_000);
const GROUP_LIMIT = { messages: 20, perSeconds: 60 };
export const CHAT_MESSAGES_TARGET = 30;
const POLL_MS = 500;
const GIVE_UP_MS = 150_000;

export interface ChatStormOutcome extends RunOutcome {
  chatMessages?: number;
  visibleSeconds?: number;
  incidentsVisible?: number;
}

/** Walks every page of the incident list: how many incidents it shows. */
async function visibleIncidents(baseUrl: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const response = await fetch(`${baseUrl}/api/v1/incidents?limit=200${query}`);
    if (!response.ok) throw new Error(`GET /api/v1/incidents answered ${response.status}`);
    const page = (await response.json()) as { items: unknown[]; next_cursor: string | null };
    count += page.items.length;
    cursor = page.next_cursor;
  } while (cursor);
  return count;
}

async function measureChatStorm(
  ctx: BenchContext,
  settings: LoadSettings,
  outcome: ChatStormOutcome,
  baseUrl: string,
  store: Parameters<typeof openDrainReader>[0],
  chat: ChatStandIn,
): Promise<void> {
  const n = CHAT_STORM_ALERTS;
  const sequence = newAlertSequence(ctx.secret, n);
  const plan: LoadPlan = {
    method: 'POST',
    path: ALERTS_PATH,
    source: { kind: 'sequence', next: () => sequence.next() },
  };
  const startedAt = Date.now();
  const sample = await sendSample(baseUrl, plan);
  if (sample.status !== 200) throw new Error(`sample alert answered ${sample.status}`);
  const storm = await cannon(baseUrl, plan, {
    connections: Math.min(settings.connections, n - 1),
    amount: n - 1,
  });
  const { startedAt: _first, lastAnswerAt: _last, ...result } = storm;
  outcome.result = result;

  const deadline = storm.lastAnswerAt + GIVE_UP_MS;
  for (;;) {
    const seen = await visibleIncidents(baseUrl);
    outcome.incidentsVisible = seen;
    if (seen >= n) {
      outcome.visibleSeconds = (Date.now() - startedAt) / 1000;
      break;
    }
    if (Date.now() > deadline) break;
    await sleep(POLL_MS);
  }

  // The chat is done when the follow-up has drained and a message got through after the
  // last 429 (the digest that came after the wait).
  const reader = await openDrainReader(store);
  try {
    for (;;) {
      const counts = chat.counts();
      const chatSettled = counts.refused === 0 || counts.lastAcceptedAt > counts.lastRefusedAt;
      if (isDrained(await reader.counts()) && chatSettled) break;
      if (Date.now() > deadline) {
        outcome.notes.push(`!!! chat not settled ${GIVE_UP_MS / 1000} s after the last answer`);
        break;
      }
      await sleep(POLL_MS);
    }
  } finally {
    await reader.close();
  }
  const counts = chat.counts();
  outcome.chatMessages = counts.messages;
  const verdict = counts.messages < CHAT_MESSAGES_TARGET ? 'PASS' : 'FAIL';
  outcome.notes.push(
    `chat: ${counts.messages} messages (${counts.cards} cards, ${counts.digests} digests, ${counts.others} others) and ${counts.edits} edits sent for ${n} incidents (target < ${CHAT_MESSAGES_TARGET}: ${verdict}); ${counts.refused} calls answered 429, ${counts.duringWait} made during a Retry-After`,
    outcome.visibleSeconds === undefined
      ? `!!! only ${outcome.incidentsVisible} of ${n} incidents visible in GET /api/v1/incidents`
      : `every incident visible in GET /api/v1/incidents ${outcome.visibleSeconds.toFixed(1)} s after the first alert (storm answered in ${((storm.lastAnswerAt - startedAt) / 1000).toFixed(1)} s, ${storm.rps.toFixed(0)}/s, non-2xx ${storm.non2xx})`,
  );
}

/** The storm with a rate-limited chat, embedded and distributed. */
export function chatStormRuns(ctx: BenchContext): OwnLoadRunSpec<ChatStormOutcome>[] {
  return (['embedded', 'distributed'] as ModeKey[]).map((modeKey) => {
    const id = `chat-storm-${modeKey}`;
    const label = `chat storm: ${CHAT_STORM_ALERTS} new incidents, chat at ${GROUP_LIMIT.messages} messages a minute, ${modeLabel(modeKey)}`;
    const skip = modeKey === 'distributed' ? ctx.distributedUnavailable : undefined;
    return {
      id,
      label,
      skip,
      async execute(settings: LoadSettings): Promise<ChatStormOutcome> {
        const outcome: ChatStormOutcome = { id, label, status: 'failed', notes: [] };
        const chat = await startChatStandIn(GROUP_LIMIT);
        try {
          const env = {
            CHAT_BOT_TOKEN: chat.token,
            CHAT_CHAT_ID: '-100424242',
            CHAT_API_BASE: chat.apiBase,
            CHAT_POLLING: 'false',
          };
          return await withOwnService(
            ctx,
            { id, label, skip, modeKey, env },
            outcome,
            (target, store) =>
              measureChatStorm(ctx, settings, outcome, target.baseUrl, store, chat),
          );
        } finally {
          await chat.close();
        }
      },
    };
  });
}

/** One row per chat storm run for the report: messages that reached the chat. */
export function chatStormVerdicts(outcomes: RunOutcome[]): StormVerdict[] {
  return outcomes
    .filter((run) => run.id.startsWith('chat-storm-'))
    .map((run) => {
      const storm = run as ChatStormOutcome;
      const label = `chat messages in a ${CHAT_STORM_ALERTS}-incident storm (${run.id.slice('chat-storm-'.length)})`;
      const target = `< ${CHAT_MESSAGES_TARGET}`;
      if (run.status === 'skipped') return { label, value: 'skipped', target, verdict: 'n/a' };
      if (run.status !== 'ok' || storm.chatMessages === undefined)
        return { label, value: 'run failed', target, verdict: 'FAIL' };
      const visible =
        storm.visibleSeconds === undefined
          ? 'not all visible'
          : `all visible in ${storm.visibleSeconds.toFixed(1)} s`;
      return {
        label,
        value: `${storm.chatMessages} messages, ${visible}`,
        target,
        verdict:
          storm.chatMessages < CHAT_MESSAGES_TARGET && storm.visibleSeconds !== undefined
            ? 'PASS'
            : 'FAIL',
      };
    });
}
