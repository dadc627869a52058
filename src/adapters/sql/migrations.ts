import type { Migration, MigrationProvider } from 'kysely';
import { migration0001Foundation } from './migrations/0001-foundation.js';
import { migration0002Errtracker } from './migrations/0002-errtracker.js';
import { migration0003ApprovalsChatRepair } from './migrations/0003-approvals-chat-repair.js';
import { migration0004AnalysisTasks } from './migrations/0004-analysis-tasks.js';
import { migration0005EventPayloads } from './migrations/0005-event-payloads.js';
import { migration0006Outbox } from './migrations/0006-outbox.js';
import { migration0007OutboxCompletion } from './migrations/0007-outbox-completion.js';
import { migration0008PlaybookRunCounts } from './migrations/0008-playbook-run-counts.js';
import { migration0009IncidentLifecycle } from './migrations/0009-incident-lifecycle.js';
import { migration0010Silences } from './migrations/0010-silences.js';
import { migration0011Heartbeats } from './migrations/0011-heartbeats.js';
import { migration0012ConsoleOrders } from './migrations/0012-console-orders.js';
import { migration0013ExternalEventFields } from './migrations/0013-external-event-fields.js';
import { migration0014TrackerComments } from './migrations/0014-tracker-comments.js';
import { migration0015CardSendOutcomes } from './migrations/0015-card-send-outcomes.js';
import type { Dialect } from './migrations/migration-kit.js';

/** One ordered list of migrations, one file each; only auto-numbering differs by dialect. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_foundation': migration0001Foundation(dialect),
    '0002_errtracker': migration0002Errtracker(dialect),
    '0003_approvals_chat_repair': migration0003ApprovalsChatRepair(dialect),
    '0004_analysis_tasks': migration0004AnalysisTasks(),
    '0005_event_payloads': migration0005EventPayloads(),
    '0006_outbox': migration0006Outbox(),
    '0007_outbox_completion': migration0007OutboxCompletion(),
    '0008_playbook_run_counts': migration0008PlaybookRunCounts(),
    '0009_incident_lifecycle': migration0009IncidentLifecycle(dialect),
    '0010_silences': migration0010Silences(),
    '0011_heartbeats': migration0011Heartbeats(),
    '0012_console_orders': migration0012ConsoleOrders(),
    '0013_external_event_fields': migration0013ExternalEventFields(dialect),
    '0014_tracker_comments': migration0014TrackerComments(),
    '0015_card_send_outcomes': migration0015CardSendOutcomes(),
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
