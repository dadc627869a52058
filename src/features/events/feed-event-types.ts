import { type Static, type TSchema, Type } from 'typebox';

const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

/** Closed: a field a publisher adds without declaring it here fails the feed's schema tests. */
const CLOSED = { additionalProperties: false } as const;

/**
 * CONTRACT, Operator console: the events of `GET /api/v1/events`, each name with the fields it
 * carries beside `type` and `at`. Declared once: `publishEvent` takes each event's data by
 * this type, and the console's `FeedEvent` is generated from it (scripts/console-api-types.ts).
 */
export const FEED_EVENT_DATA = {
  // CONTRACT, Operator console: enough to show the incident without reading it back.
  'incident.created': Type.Object(
    {
      incident_id: Type.String(),
      approval_id: Nullable(Type.String()),
      fingerprint: Type.String(),
      severity: Type.String(),
      namespace: Type.String(),
      alert_name: Type.String(),
      workload: Type.String(),
      status: Type.Literal('open'),
      hit_count: Type.Integer(),
    },
    CLOSED,
  ),
  'incident.converged': Type.Object(
    { incident_id: Type.String(), approval_id: Nullable(Type.String()), hit_count: Type.Integer() },
    CLOSED,
  ),
  'incident.acknowledged': Type.Object(
    { incident_id: Type.String(), actor: Type.String() },
    CLOSED,
  ),
  'incident.resolved': Type.Object({ incident_id: Type.String(), actor: Type.String() }, CLOSED),
  'incident.reopened': Type.Object(
    {
      incident_id: Type.String(),
      actor: Type.String({ description: '`alert`: a new firing of its fingerprint reopened it' }),
    },
    CLOSED,
  ),
  'approval.created': Type.Object(
    {
      approval_id: Type.String(),
      incident_id: Nullable(
        Type.String(),
        'null for an error-tracker issue, which names its `issue_id` instead',
      ),
      issue_id: Type.Optional(Type.String()),
      action: Type.String(),
      risk_level: Type.String(),
    },
    CLOSED,
  ),
  'approval.updated': Type.Object(
    {
      approval_id: Type.String(),
      status: Type.String(),
      decision: Type.Optional(
        Type.String({ description: 'only on a decision by a person (chat or console)' }),
      ),
      actor: Type.String(),
      channel: Type.String({
        description:
          '`chat`, `console`, `auto-repair`, or `lifecycle` for an approval expired with its incident',
      }),
    },
    CLOSED,
  ),
  'signal.handled': Type.Object(
    {
      entry_id: Type.String(),
      outcome: Type.Union([
        Type.Literal('recorded'),
        Type.Literal('incident_created'),
        Type.Literal('converged'),
        Type.Literal('silenced'),
      ]),
      incident_id: Type.Optional(
        Nullable(
          Type.String(),
          'absent when the signal was only recorded; null when a silence muted it',
        ),
      ),
    },
    CLOSED,
  ),
  'analysis.updated': Type.Object(
    {
      task_id: Type.String(),
      state: Type.String(),
      progress: Type.Number(),
      agents_completed: Type.Integer(),
      total_agents: Type.Integer(),
    },
    CLOSED,
  ),
  'silence.created': Type.Object({ silence_id: Type.String(), actor: Type.String() }, CLOSED),
  'silence.expired': Type.Object({ silence_id: Type.String(), actor: Type.String() }, CLOSED),
};

export type FeedEventName = keyof typeof FEED_EVENT_DATA;
export type FeedEventData<K extends FeedEventName> = Static<(typeof FEED_EVENT_DATA)[K]>;

/**
 * One event as the JSON of its `data:` line: its name as `type`, the ISO 8601 time of the
 * change as `at`, then its data. The feed id is the frame's `id:` line, not a field.
 */
export type FeedEvent = {
  [K in FeedEventName]: { type: K; at: string } & FeedEventData<K>;
}[FeedEventName];

export const FEED_EVENT_NAMES = Object.keys(FEED_EVENT_DATA) as FeedEventName[];

/** Each event's JSON Schema, `type` and `at` included: what the tests check each frame against. */
export const FEED_EVENT_SCHEMAS: ReadonlyMap<FeedEventName, TSchema> = new Map(
  FEED_EVENT_NAMES.map((name) => [
    name,
    Type.Object(
      {
        type: Type.Literal(name),
        at: Type.String({ format: 'date-time' }),
        ...FEED_EVENT_DATA[name].properties,
      },
      CLOSED,
    ),
  ]),
);

/** The JSON Schema of `FeedEvent`, from which the console's type is generated. */
export const FeedEventSchema = Type.Union([...FEED_EVENT_SCHEMAS.values()]);
