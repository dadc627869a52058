import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { bodyValidator } from '../../http/body-validator.js';
import { ErrorBody } from '../../http/error-body.js';
import type { AlertIntake, AlertResult } from './alert-intake.js';
import {
  AlertmanagerBody,
  AlertResponse,
  FlatAlertBody,
  flatAlertFromBody,
} from './alert-schema.js';
import { fromAlertmanager } from './normalize-alert.js';

/** What both alert receivers take: a flat alert, or an Alertmanager (version 4) or Grafana batch. */
export const AlertDeliveryBody = Type.Union([FlatAlertBody, AlertmanagerBody]);

/** What both alert receivers answer (the 400, 413 and 415 come from reading the body). */
export const AlertDeliveryResponses = {
  200: AlertResponse,
  400: ErrorBody,
  401: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  422: ErrorBody,
};

const validateFlat = bodyValidator<FlatAlertBody>(FlatAlertBody);
const validateAlertmanager =
  bodyValidator<Parameters<typeof fromAlertmanager>[0]>(AlertmanagerBody);

/**
 * The body is one of two shapes; it is validated in `acceptAlertDelivery` against the one it
 * claims, so a mistake is reported against that shape's fields.
 */
export const validateLater = () => (value: unknown) => ({ value });

/**
 * One delivery to `/webhooks/alerts` or `/webhooks/alertmanager`, once its sender is
 * authenticated: anything with `alerts` is judged as an Alertmanager batch (Grafana's
 * webhook shares that shape), anything else as one flat alert. A batch of more than
 * `maxAlerts` is refused whole before any of it is recorded (CONTRACT, Hostile clients).
 */
export async function acceptAlertDelivery(intake: AlertIntake, body: unknown, maxAlerts: number) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.validation('body must be a JSON object');
  }
  if ('alerts' in body) {
    if (Array.isArray(body.alerts) && body.alerts.length > maxAlerts) {
      throw errors.tooManyAlerts(body.alerts.length, maxAlerts);
    }
    const { alerts } = fromAlertmanager(validateAlertmanager(body));
    // CONTRACT, Heartbeats: a Watchdog beats `watchdog:<receiver>`.
    const receiver =
      'receiver' in body && typeof body.receiver === 'string' && body.receiver !== ''
        ? body.receiver
        : 'alertmanager';
    // Firing alerts side by side converge in one transaction; a resolved one waits for those
    // before it, so "firing, then resolved" in one body ends resolved, as it would one by one.
    // A failure is thrown once its group has settled, so no alert of the body is still being
    // written when the error is answered, and none after that group was started.
    const results: AlertResult[] = [];
    let firing: Array<Promise<AlertResult>> = [];
    const settle = async () => {
      for (const outcome of await Promise.allSettled(firing)) {
        if (outcome.status === 'rejected') throw outcome.reason;
        results.push(outcome.value);
      }
      firing = [];
    };
    for (const alert of alerts) {
      if (alert.status !== 'resolved') {
        firing.push(intake.accept(alert, 'alertmanager', { receiver }));
        continue;
      }
      await settle();
      results.push(await intake.accept(alert, 'alertmanager', { receiver }));
    }
    await settle();
    return { status: 'batch' as const, results };
  }
  const flat = validateFlat(body);
  if (!flat.alert_name && !flat.alert_type) {
    throw errors.validation('body.alert_name is required unless body.alert_type is given');
  }
  return intake.accept(flatAlertFromBody(flat), 'webhook');
}
