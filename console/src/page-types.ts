/**
 * The names the incident, approval and analysis pages use for what the service answers (issue
 * 25's additions included), from the types generated from its OpenAPI document.
 */
import type { ApprovalDetail, IncidentDetail, TaskPage } from './api-types.generated.js';

export type IncidentPageData = IncidentDetail;
/** One of the incident's latest alerts, with its labels, annotations and generator URL. */
export type IncidentAlert = IncidentDetail['recent_alerts'][number];
/** A silence that matches the incident's labels, active or pending. */
export type MatchingSilence = IncidentDetail['silences'][number];

/** An approval with its signers, its incident's names, dry run and auto-repair decision. */
export type ApprovalPageData = ApprovalDetail;
/** The incident an approval is for, as the approval carries it. */
export type ApprovalIncident = NonNullable<ApprovalDetail['incident']>;

/** Analyses as listed (`GET /agents/tasks`), newest first. */
export type TaskList = TaskPage;
export type TaskSummary = TaskPage['items'][number];
