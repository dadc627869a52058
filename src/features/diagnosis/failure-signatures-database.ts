import { type FailureSignature, HOST_EXTRACTORS, TEXT, TYPE, WHERE } from './signature-types.js';

/**
 * Failure signatures reported by the database: statement/lock timeouts, deadlocks, schema
 * drift, unique violations and exhausted connection pools.
 */
export const DATABASE_SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'query-timeout',
    name: 'Database statement or lock timeout',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:QueryCanceled(?:Error)?|QueryTimeoutException|SQLTimeoutException|MySQLTimeoutException|LockNotAvailable|LockTimeoutException|PessimisticLockException)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /canceling statement due to (?:statement|lock) timeout|Lock wait timeout exceeded|maximum statement execution time exceeded|Query execution was interrupted|could not obtain lock/i,
        weight: 0.6,
      },
      {
        fields: TEXT,
        pattern: /\bstatement[_ ]timeout\b|\block[_ ]timeout\b|query timed out/i,
        weight: 0.5,
      },
    ],
    subject: {
      label: 'query',
      unknown: 'a query',
      extractors: [
        {
          fields: ['frame'],
          pattern: /(?<q>\b(?:SELECT|UPDATE|INSERT|DELETE)\b[^"'`\n]{0,60})/i,
          template: "'{q}'",
        },
      ],
    },
    rootCause:
      'The database cancelled {subject} issued at {location} because it ran longer than the statement timeout or waited too long for a lock: a missing index or a plan change, a much larger data volume, or a long transaction holding the rows.',
    impact:
      'Operations in {project} that run this query fail while the database is slow or the lock is held; retries pile more load on the database.',
    fix: 'Run EXPLAIN (ANALYZE) on the query from {location} and add the missing index or rewrite it; find and shorten the transaction holding the lock (pg_stat_activity / SHOW ENGINE INNODB STATUS).',
    prevention:
      'Track slow-query logs and lock waits, keep transactions short, and review query plans for new access paths before release.',
  },
  {
    id: 'deadlock',
    name: 'Deadlock',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:DeadlockDetected|DeadlockLoserDataAccessException|CannotAcquireLockException|LockAcquisitionException|TransactionRollbackError|MySQLTransactionRollbackException)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /deadlock detected|Deadlock found when trying to get lock|all goroutines are asleep - deadlock|deadlock victim|ER_LOCK_DEADLOCK/i,
        weight: 0.6,
      },
      {
        fields: TEXT,
        pattern: /\bdeadlock\b|could not serialize access due to concurrent update/i,
        weight: 0.45,
      },
    ],
    subject: {
      label: 'lock',
      unknown: 'locks',
      extractors: [
        {
          fields: TEXT,
          pattern: /waits for (?<l>\w+) on (?<o>transaction|relation|tuple)/,
          template: '{l} on a {o}',
        },
        {
          fields: TEXT,
          pattern: /(?<g>all goroutines are asleep)/,
          template: "'{g}'",
          label: 'Go runtime report',
        },
      ],
    },
    rootCause:
      'Work running at {location} deadlocked on {subject}: two transactions (or goroutines) each hold what the other needs, usually because they lock the same rows or mutexes in different orders, or a goroutine waits on a channel nobody will send to.',
    impact:
      'One side of each deadlock is aborted in {project}; for Go "all goroutines are asleep" the whole process stops.',
    fix: 'Make every code path around {location} acquire rows/locks in the same order (for example sorted by primary key), keep transactions short, and retry the aborted transaction; for Go, fix the channel/mutex that is never released.',
    prevention:
      'Log the database deadlock report (log_lock_waits / innodb_print_all_deadlocks), test concurrent updates, and use consistent lock ordering in shared code.',
  },
  {
    id: 'schema-mismatch',
    name: 'Schema / migration mismatch',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:UndefinedTable|UndefinedColumn|UndefinedObject)$/,
        weight: 0.5,
      },
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:ProgrammingError|SQLGrammarException|BadSqlGrammarException|InvalidDataAccessResourceUsageException)$/,
        weight: 0.25,
      },
      {
        fields: TEXT,
        pattern:
          /relation "[^"]+" does not exist|column "?[\w.]+"?(?: of relation "[^"]+")? does not exist|no such (?:table|column)|Table '[^']+' doesn't exist|Unknown column '[^']+'|ER_NO_SUCH_TABLE|ER_BAD_FIELD_ERROR|Invalid (?:object|column) name '|has no column named/i,
        weight: 0.6,
      },
      {
        fields: TEXT,
        pattern:
          /\bmigrations? (?:failed|pending|out of date|not applied)|pending migrations?|MigrationError|alembic|Flyway|Liquibase/i,
        weight: 0.45,
      },
      {
        fields: WHERE,
        pattern: /\bmigrations?\b|alembic|flyway|liquibase|knex[/\\]lib[/\\]migrat/i,
        weight: 0.3,
      },
    ],
    subject: {
      label: 'table',
      unknown: 'a table or column',
      extractors: [
        {
          fields: TEXT,
          pattern: /column "(?<c>[^"]+)" of relation "(?<t>[^"]+)" does not exist/,
          template: "'{t}.{c}'",
          label: 'column',
        },
        {
          fields: TEXT,
          pattern:
            /column "?(?<c>[\w.]+)"? does not exist|no such column: (?<d>[\w.]+)|Unknown column '(?<e>[^']+)'|Invalid column name '(?<f>[^']+)'/,
          template: "'{c}{d}{e}{f}'",
          label: 'column',
        },
        {
          fields: TEXT,
          pattern: /table (?<t>[\w."]+) has no column named (?<c>\w+)/,
          template: "'{t}.{c}'",
          label: 'column',
        },
        {
          fields: TEXT,
          pattern:
            /relation "(?<t>[^"]+)" does not exist|no such table: (?<u>[\w.]+)|Table '(?<v>[^']+)' doesn't exist|Invalid object name '(?<w>[^']+)'/,
          template: "'{t}{u}{v}{w}'",
        },
      ],
    },
    rootCause:
      'The code at {location} expects {subject}, which the database in this environment does not have: a migration was not applied (or failed) before the new code was deployed, the code runs against the wrong database/schema, or a migration dropped or renamed it while old code still uses it.',
    impact:
      'Every operation in {project} that touches {subject} fails until the schema and the code agree again; this usually started with a deploy.',
    fix: 'Compare the applied migrations with the code version (alembic current, flyway info, knex migrate:status) and apply the missing migration, or roll the code back; check the connection points at the intended database and schema.',
    prevention:
      'Run migrations as a gated deploy step before the new code starts, use expand/contract migrations for renames and drops, and verify the schema version at startup.',
  },
  {
    id: 'unique-violation',
    name: 'Unique constraint violation',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:UniqueViolation(?:Error)?|DuplicateKeyException|SequelizeUniqueConstraintError|SQLIntegrityConstraintViolationException)$/,
        weight: 0.5,
      },
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:IntegrityError|DataIntegrityViolationException|ConstraintViolationException)$/,
        weight: 0.25,
      },
      {
        fields: TEXT,
        pattern:
          /duplicate key value violates unique constraint|Duplicate entry '[^']*' for key|ER_DUP_ENTRY|UNIQUE constraint failed|E11000 duplicate key|Unique constraint failed|Cannot insert duplicate key/i,
        weight: 0.6,
      },
    ],
    subject: {
      label: 'constraint',
      unknown: 'a unique constraint',
      extractors: [
        { fields: TEXT, pattern: /violates unique constraint "(?<c>[^"]+)"/, template: "'{c}'" },
        {
          fields: TEXT,
          pattern: /Duplicate entry '[^']*' for key '(?<k>[^']+)'/,
          template: "'{k}'",
          label: 'key',
        },
        {
          fields: TEXT,
          pattern: /UNIQUE constraint failed: (?<c>[\w.]+(?:, [\w.]+)*)/,
          template: "'{c}'",
          label: 'column',
        },
        {
          fields: TEXT,
          pattern: /E11000 duplicate key error collection: (?<c>\S+) index: (?<i>\S+)/,
          template: "'{i}' on '{c}'",
          label: 'index',
        },
        {
          fields: TEXT,
          pattern: /Unique constraint failed on the (?:fields|constraint): \(`(?<c>[^`]+)`\)/,
          template: "'{c}'",
        },
      ],
    },
    rootCause:
      'An insert or update at {location} tried to write a row that duplicates an existing one under {subject}. Typical causes: a retried or double-submitted request, two workers creating the same record concurrently (check-then-insert race), or an id sequence that is behind the data after an import.',
    impact:
      'The duplicate write fails in {project}; the first write usually succeeded, so users may see an error for work that was in fact done.',
    fix: 'At {location}, make the write idempotent (INSERT ... ON CONFLICT / upsert, or catch the violation and return the existing row); if ids collide, reset the sequence to above the current maximum.',
    prevention:
      'Use idempotency keys for client retries, rely on the constraint instead of check-then-insert, and test concurrent creation.',
  },
  {
    id: 'pool-exhausted',
    name: 'Connection pool exhausted',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:PoolTimeout|PoolError|PoolExhaustedError|SQLTransientConnectionException|ConnectionPoolTimeoutException|KnexTimeoutError|TooManyConnections)$/,
        weight: 0.45,
      },
      // SQLAlchemy reports an exhausted QueuePool as a plain `TimeoutError` with "timed out" in
      // the text, which the timeout family also scores; this keeps the pool diagnosis ahead.
      { fields: TYPE, pattern: /^(?:sqlalchemy\.exc\.)?TimeoutError$/, weight: 0.3 },
      {
        fields: TEXT,
        pattern:
          /QueuePool limit of size \d+ overflow \d+ reached|Connection is not available, request timed out after|Timeout acquiring a connection|pool (?:is )?(?:probably )?(?:full|exhausted)|remaining connection slots are reserved|too many (?:connections|clients)|max(?:imum)? number of clients reached|ER_CON_COUNT_ERROR|timeout exceeded when trying to connect/i,
        weight: 0.65,
      },
      { fields: WHERE, pattern: /\bpool\b|hikari|QueuePool|generic-pool|tarn/i, weight: 0.15 },
    ],
    subject: {
      label: 'pool',
      unknown: 'the connection pool',
      extractors: [
        {
          fields: TEXT,
          pattern: /QueuePool limit of size (?<s>\d+) overflow (?<o>\d+)/,
          template: 'limit {s} + overflow {o}',
        },
        {
          fields: TEXT,
          // Starts where the pool name's run starts, not inside it: a start at every character
          // rescanned the run, quadratically.
          pattern:
            /(?:^|[^\w-])(?<p>[\w-]+) - Connection is not available, request timed out after (?<ms>\d+)ms/,
          template: "'{p}' (waited {ms} ms)",
        },
        ...HOST_EXTRACTORS,
      ],
    },
    rootCause:
      "Code at {location} could not get a connection: {subject} (or the server's connection limit) was used up. Connections are held too long (slow queries, transactions left open, leaks on error paths), or more replicas x pool size were started than the database allows.",
    impact:
      'Requests in {project} queue and then fail while the pool is exhausted; latency rises for everything sharing the database.',
    fix: 'Look for connections held across slow work or not released on error paths near {location} (use context managers / try-with-resources); then size pool x replicas below the server max_connections, or add a pooler such as PgBouncer.',
    prevention:
      'Export pool usage and wait-time metrics, set a pool acquire timeout and a statement timeout, and include replica count in connection budgeting.',
  },
];
