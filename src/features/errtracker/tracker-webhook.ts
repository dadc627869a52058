import { errors } from '../../errors.js';
import type { Services } from '../../services.js';
import type { AnalyzeIssueServices } from './analyze-issue.js';
import { canaryEventFields, externalEventFields, isCanary } from './canary.js';
import { actionOf, buildErrorContext, describeIssue } from './error-context.js';
import { eventPayload, rawEventPayload, signedEventPayload } from './external-event-records.js';
import { addIssueAnalysis, relayIssueAnalysis } from './issue-analysis-job.js';
import { authenticateCanary, verifyTrackerSignature } from './tracker-auth.js';

/** spec, Limits: "Error-tracker dedup window: 600 seconds per issue id". */
export const DEDUP_TTL_SECONDS = 600;
/** Where canary conversations are appended; its entry id is the `conversation_event_id`. */
export const CONVERSATIONS_STREAM = 'platform:conversations';

export interface TrackerDelivery {
  rawBody: Buffer;
  payload: unknown;
  signature?: string;
  operatorId?: string;
  operatorKey?: string;
}

const NO_SIDE_EFFECTS = {
  incident_created: false,
  approval_created: false,
  chat_sent: false,
  agent_called: false,
};

/** The services a delivery uses: its analysis job's, the dedup keys and the signals stream. */
export type TrackerDeliveryServices = AnalyzeIssueServices & Pick<Services, 'once' | 'stream'>;

/** spec, `POST /webhooks/errtracker/error` processing order, steps 2 to 7. */
export async function handleTrackerDelivery(
  services: TrackerDeliveryServices,
  delivery: TrackerDelivery,
) {
  const { config, store, clock, once, stream } = services;
  const { payload } = delivery;
  const now = clock.now();
  const issue = describeIssue(payload);

  if (isCanary(payload)) {
    const auth = authenticateCanary(
      delivery,
      delivery.rawBody,
      config.operatorKeys,
      config.errtrackerClientSecret,
    );
    if (!auth) throw errors.canaryUnauthenticated();
    try {
      const context = buildErrorContext(payload, issue);
      const fields = canaryEventFields(payload, context, auth);
      const eventId = await services.trackerEvents.record(fields, now, { auth });
      const conversationEventId = await stream.append(
        CONVERSATIONS_STREAM,
        {
          provider: 'errtracker',
          kind: 'upstream_canary',
          event_id: eventId,
          issue_id: issue.issue_id,
        },
        10_000,
      );
      return {
        status: 'canary_recorded',
        provider: 'errtracker',
        event_id: eventId,
        conversation_event_id: conversationEventId,
        side_effects: NO_SIDE_EFFECTS,
      };
    } catch (error) {
      services.log.error({ err: error }, 'upstream canary not recorded');
      throw errors.canaryNotRecorded();
    }
  }

  const verdict = verifyTrackerSignature(
    delivery.rawBody,
    delivery.signature,
    config.errtrackerClientSecret,
    config.appEnv === 'prod',
  );
  if (!verdict.ok) throw errors.trackerSignatureFailed(verdict.reason);

  if (actionOf(payload) !== 'triggered') {
    return { status: 'ignored', reason: 'action is not triggered' };
  }

  // The body parsed to this object, so its raw text is the payload's JSON as received, and
  // valid UTF-8: the bytes hashed are the text's own.
  const { rawBody } = delivery;
  const stored =
    rawBody.length === 0
      ? eventPayload('{}')
      : verdict.checked
        ? signedEventPayload(rawBody, verdict.bodyMac)
        : rawEventPayload(rawBody);
  const recordStage = services.trackerEvents.stages(
    externalEventFields(issue, 'received', payload),
    {
      payload: stored,
    },
  );
  const deduplicated = {
    status: 'deduplicated',
    issue_id: issue.issue_id,
    ttl: DEDUP_TTL_SECONDS,
  } as const;
  // A repeat of an issue this process claimed is known without asking the store: both of its
  // stages, received then deduplicated, are queued in this turn and so share one write.
  if (issue.issue_id && once.claimedHere?.('errtracker-issue', issue.issue_id)) {
    const writes = await Promise.allSettled([
      recordStage('received', now),
      recordStage('deduplicated', now),
    ]);
    for (const write of writes) if (write.status === 'rejected') throw write.reason;
    return deduplicated;
  }
  await recordStage('received', now);
  if (!issue.issue_id) return { status: 'ignored', reason: 'issue id is missing' };
  const first = await once.claim('errtracker-issue', issue.issue_id, DEDUP_TTL_SECONDS);
  if (!first) {
    await recordStage('deduplicated', now);
    return deduplicated;
  }

  if (issue.level !== 'error' && issue.level !== 'fatal') {
    return { status: 'ignored', reason: `level ${issue.level} does not require analysis` };
  }

  const job = { context: buildErrorContext(payload, issue), received_at: now };
  try {
    await store.db.transaction().execute((tx) => addIssueAnalysis(services, tx, job, now));
  } catch (error) {
    // Not scheduled: give the dedup window back, so the tracker's redelivery is analysed.
    await once
      .release('errtracker-issue', issue.issue_id)
      .catch((releaseError: unknown) =>
        services.log.error({ err: releaseError }, 'errtracker: dedup key not released'),
      );
    throw error;
  }
  await relayIssueAnalysis(services, job);
  return { status: 'accepted', issue_id: issue.issue_id, message: 'Analysis scheduled' };
}
