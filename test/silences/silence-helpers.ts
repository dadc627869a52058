import type { FastifyInstance } from 'fastify';

export const SILENCES = '/api/v1/alertmanager/api/v2/silences';
export const SILENCE = '/api/v1/alertmanager/api/v2/silence';
export const ALERTS = '/api/v1/webhooks/alerts';
export const CONSOLE_TOKEN = 'silence-console-token-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${CONSOLE_TOKEN}` };

export interface MatcherInput {
  name: string;
  value: string;
  isRegex?: boolean;
  isEqual?: boolean;
}

/** A postable silence from `now` for an hour, with Alertmanager's field names. */
export function silenceBody(
  now: number,
  matchers: MatcherInput[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    matchers: matchers.map((matcher) => ({ isRegex: false, isEqual: true, ...matcher })),
    startsAt: new Date(now).toISOString(),
    endsAt: new Date(now + 60 * 60 * 1000).toISOString(),
    createdBy: 'alice',
    comment: 'maintenance',
    ...extra,
  };
}

export async function createSilence(app: FastifyInstance, body: Record<string, unknown>) {
  const response = await app.inject({
    method: 'POST',
    url: SILENCES,
    headers: AUTH,
    payload: body,
  });
  if (response.statusCode !== 200) {
    throw new Error(`silence not created: ${response.statusCode} ${response.body}`);
  }
  return (response.json() as { silenceID: string }).silenceID;
}

export function postAlert(app: FastifyInstance, alert: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: ALERTS, payload: alert });
}

export const maintenanceAlert = {
  alert_name: 'KubePodCrashLooping',
  severity: 'critical',
  source: 'prometheus',
  target_resource: 'checkout-7d9f8b6c5-x2x4z',
  namespace: 'shop',
  message: 'Pod is restarting',
  labels: { team: 'payments' },
};
