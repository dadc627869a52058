import { type Static, Type } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** ports/analyzer.ts's ErrorContext, as the job carries it. */
const ErrorContextPayload = Type.Object({
  issue_id: Type.String(),
  source_url: Nullable(Type.String()),
  title: Type.String(),
  culprit: Type.String(),
  level: Type.String(),
  first_seen: Nullable(Type.String()),
  count: Type.Number(),
  project: Type.String(),
  message: Type.String(),
  platform: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
  stacktrace: Type.Array(
    Type.Object({
      filename: Nullable(Type.String()),
      function: Nullable(Type.String()),
      lineno: Nullable(Type.Number()),
      context_line: Nullable(Type.String()),
    }),
  ),
  exception: Nullable(
    Type.Object({ type: Nullable(Type.String()), value: Nullable(Type.String()) }),
  ),
});

/** The payload of an issue's analysis job: the issue and when it was received. */
export const AnalyzeIssuePayload = Type.Object({
  context: ErrorContextPayload,
  received_at: Type.Number(),
});
export type AnalyzeIssueJob = Static<typeof AnalyzeIssuePayload>;

/** One per accepted delivery: the issue and when it was received. */
export function issueAnalysisJobId(job: AnalyzeIssueJob): string {
  return `errtracker-${job.context.issue_id}-${job.received_at}`;
}
