import type { AddressInfo } from 'node:net';
import { EventSource } from 'eventsource';
import type { FastifyInstance } from 'fastify';
import { AGENTS, type AgentName } from '../../src/features/analysis/analysis-types.js';
import { postSigned } from '../helpers/build-app.js';
import { chatCompletion, type RecordedRequest, startUpstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely in assertions
export type Json = Record<string, any>;

/** Opens an incident through the alert webhook (unsigned: tests run without a secret). */
export async function openIncident(app: FastifyInstance, alert: Json = {}): Promise<string> {
  const response = await postSigned(app, '/api/v1/webhooks/alerts', {
    alert_name: 'KubePodCrashLooping',
    severity: 'critical',
    namespace: 'shop',
    target_resource: 'cart-6b8f9c7d5-k2p9x',
    message: 'Back-off restarting failed container',
    ...alert,
  });
  const incident = response.json().incident_id as string | undefined;
  if (!incident) throw new Error(`no incident: ${response.body}`);
  return incident;
}

export async function analyze(app: FastifyInstance, body: unknown) {
  return app.inject({ method: 'POST', url: '/api/v1/agents/analyze', payload: body as Json });
}

export function statusOf(app: FastifyInstance, taskId: string) {
  return app.inject(`/api/v1/agents/status/${taskId}`).then((r) => r.json() as Json);
}

export function waitForState(app: FastifyInstance, taskId: string, state: string) {
  return waitFor(
    async () => {
      const status = await statusOf(app, taskId);
      return status.state === state ? status : undefined;
    },
    { what: `task ${taskId} ${state}` },
  );
}

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

export interface StreamClient {
  events: { id: string; data: Json }[];
  /** Resolves when the server ends the stream (the client then stops, without reconnecting). */
  ended: Promise<void>;
  opened: Promise<void>;
  source: EventSource;
  waitForEvent(match: (data: Json) => boolean): Promise<Json>;
}

/** A real EventSource (the `eventsource` package) following one task's stream. */
export function followStream(url: string, lastEventId?: string): StreamClient {
  const source = new EventSource(url, {
    fetch: (input, init) => {
      const headers = { ...(init?.headers as Record<string, string>) };
      if (lastEventId !== undefined && !headers['Last-Event-ID']) {
        headers['Last-Event-ID'] = lastEventId;
      }
      return fetch(input, { ...init, headers });
    },
  });
  const events: StreamClient['events'] = [];
  source.onmessage = (event) =>
    events.push({ id: event.lastEventId, data: JSON.parse(event.data) });
  const opened = new Promise<void>((resolve) => {
    source.onopen = () => resolve();
  });
  const ended = new Promise<void>((resolve) => {
    source.onerror = () => {
      source.close();
      resolve();
    };
  });
  return {
    events,
    ended,
    opened,
    source,
    waitForEvent: (match) =>
      waitFor(async () => events.find((event) => match(event.data))?.data, {
        what: 'a stream event',
      }),
  };
}

export function opinionFor(agent: AgentName): Json {
  const actions: Record<AgentName, string> = {
    stability: 'restart_workload',
    security: 'rotate_credentials',
    cost: 'restart_workload',
    performance: 'scale_out',
  };
  return {
    recommended_action: actions[agent],
    recommended_kubectl: `kubectl rollout restart deployment/cart -n shop`,
    risk_level: 'medium',
    reasoning: `${agent} model reasoning`,
    confidence: 0.8,
  };
}

/** Which expert a chat-completions request is for, from its system prompt. */
export function agentOf(request: RecordedRequest): AgentName {
  const prompt = String((request.body as Json).messages?.[0]?.content ?? '');
  const agent = AGENTS.find((name) => prompt.includes(`You are the ${name.toUpperCase()} expert`));
  if (!agent) throw new Error(`no expert in prompt: ${prompt.slice(0, 80)}`);
  return agent;
}

/**
 * An OpenAI-compatible upstream for the model experts. While `held`, answers wait until
 * `release()`; `fail` lists experts answered with HTTP 500.
 */
export async function expertModel(options: { held?: boolean; fail?: AgentName[] } = {}) {
  let open = !options.held;
  const waiting: (() => void)[] = [];
  const upstream = await startUpstream(async (request) => {
    if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
    const agent = agentOf(request);
    if (options.fail?.includes(agent)) return { status: 500, body: { error: `${agent} down` } };
    return chatCompletion(opinionFor(agent));
  });
  return {
    upstream,
    release() {
      open = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}
