import { errors } from '../../errors.js';
import type { Severity } from './analysis-types.js';

/** spec, Analysis request: the body of POST /agents/analyze, as stored with the task. */
export interface AnalysisRequest {
  incident_id?: string;
  severity?: Severity;
  affected_services?: string[];
  alert_names?: string[];
  context?: Record<string, unknown>;
}

/** The body as the route schema lets it through: any field may also be null. */
export interface AnalysisBody {
  incident_id?: string | null;
  severity?: Severity | null;
  affected_services?: string[] | null;
  alert_names?: string[] | null;
  context?: Record<string, unknown> | null;
}

/** The 400 detail (spec, Errors: "neither incident_id nor severity with affected_services"). */
export const MISSING_INPUT = errors.analysisInputMissing().detail;

const names = (values: readonly string[] | null | undefined) => [
  ...new Set((values ?? []).map((value) => value.trim()).filter(Boolean)),
];

/**
 * spec, Analysis tasks: the two input modes. An incident id wins when both are given (the
 * other fields then add to what the incident says). Blank strings and empty lists count as
 * not given. Undefined when neither mode is complete.
 */
export function normalizeRequest(
  body: AnalysisBody | null | undefined,
): AnalysisRequest | undefined {
  const incidentId = body?.incident_id?.trim();
  const services = names(body?.affected_services);
  const severity = body?.severity ?? undefined;
  if (!incidentId && !(severity && services.length > 0)) return undefined;
  const alertNames = names(body?.alert_names);
  return {
    ...(incidentId ? { incident_id: incidentId } : {}),
    ...(severity ? { severity } : {}),
    ...(services.length ? { affected_services: services } : {}),
    ...(alertNames.length ? { alert_names: alertNames } : {}),
    ...(body?.context ? { context: body.context } : {}),
  };
}
