import { frame } from '../analyzers/error-contexts.js';
import { type SignatureCase, signatureCase } from './signature-case.js';

/** Rules-analyzer signature cases: network and the database. */
export const INFRA_CASES: SignatureCase[] = [
  // timeouts
  signatureCase(
    'python requests ReadTimeout',
    'timeout',
    'strong',
    ["upstream 'payments.internal:443'"],
    {
      type: 'ReadTimeout',
      value:
        "HTTPSConnectionPool(host='payments.internal', port=443): Read timed out. (read timeout=10)",
    },
  ),
  signatureCase('node ETIMEDOUT', 'timeout', 'partial', ["upstream '10.0.3.7:443'"], {
    type: 'Error',
    value: 'connect ETIMEDOUT 10.0.3.7:443',
  }),
  signatureCase('java SocketTimeoutException', 'timeout', 'strong', ['an upstream dependency'], {
    type: 'java.net.SocketTimeoutException',
    value: 'Read timed out',
  }),
  signatureCase('go context deadline', 'timeout', 'partial', ["upstream 'ledger.internal'"], {
    type: '*url.Error',
    value:
      'Post "https://ledger.internal/v1/entries": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
  }),
  signatureCase(
    'python statement timeout',
    'query-timeout',
    'strong',
    ["query 'SELECT id FROM orders WHERE status = %s'"],
    {
      type: 'QueryCanceled',
      value: 'canceling statement due to statement timeout',
      frames: [
        frame(
          'app/repo.py',
          'pending_orders',
          30,
          'cur.execute("SELECT id FROM orders WHERE status = %s", (status,))',
        ),
      ],
    },
    'app/repo.py:30 in pending_orders',
  ),
  // connection refused / reset
  signatureCase(
    'node ECONNREFUSED',
    'connection-refused',
    'partial',
    ["endpoint '127.0.0.1:5432'"],
    {
      type: 'Error',
      value: 'connect ECONNREFUSED 127.0.0.1:5432',
    },
  ),
  signatureCase(
    'python ConnectionRefusedError',
    'connection-refused',
    'strong',
    ['the target endpoint'],
    {
      type: 'ConnectionRefusedError',
      value: '[Errno 111] Connection refused',
    },
  ),
  signatureCase(
    'python psycopg2 refused',
    'connection-refused',
    'strong',
    ["endpoint 'db.internal:5432'"],
    {
      type: 'OperationalError',
      value:
        'could not connect to server: Connection refused\n\tIs the server running on host "db.internal" (10.0.0.5) and accepting\n\tTCP/IP connections on port 5432?',
    },
  ),
  signatureCase('java ConnectException', 'connection-refused', 'strong', ['refused'], {
    type: 'java.net.ConnectException',
    value: 'Connection refused (Connection refused)',
  }),
  signatureCase('go dial refused', 'connection-refused', 'partial', ["endpoint '10.0.0.5:6379'"], {
    type: '*net.OpError',
    value: 'dial tcp 10.0.0.5:6379: connect: connection refused',
  }),
  signatureCase('python connection reset', 'connection-reset', 'strong', ['the remote peer'], {
    type: 'ConnectionResetError',
    value: '[Errno 104] Connection reset by peer',
  }),
  signatureCase('go broken pipe', 'connection-reset', 'partial', ['keep-alive'], {
    type: '*net.OpError',
    value: 'write tcp 10.0.0.2:5000->10.0.0.9:443: write: broken pipe',
  }),
  signatureCase('node socket hang up', 'connection-reset', 'partial', ['the remote peer'], {
    type: 'Error',
    value: 'socket hang up',
  }),
  // DNS
  signatureCase('node ENOTFOUND', 'dns-failure', 'partial', ["hostname 'api.stripe.invalid'"], {
    type: 'Error',
    value: 'getaddrinfo ENOTFOUND api.stripe.invalid',
  }),
  signatureCase(
    'java UnknownHostException',
    'dns-failure',
    'strong',
    ["hostname 'inventory-service'"],
    {
      type: 'java.net.UnknownHostException',
      value: 'inventory-service: Name or service not known',
    },
  ),
  signatureCase('go no such host', 'dns-failure', 'partial', ["hostname 'db.internal'"], {
    type: '*net.OpError',
    value: 'dial tcp: lookup db.internal on 10.96.0.10:53: no such host',
  }),
  signatureCase('python gaierror', 'dns-failure', 'strong', ['a hostname'], {
    type: 'gaierror',
    value: '[Errno -2] Name or service not known',
  }),
  // deadlocks
  signatureCase(
    'python postgres deadlock',
    'deadlock',
    'strong',
    ['lock ShareLock on a transaction'],
    {
      type: 'DeadlockDetected',
      value:
        'deadlock detected\nDETAIL:  Process 4242 waits for ShareLock on transaction 991; blocked by process 4243.',
    },
  ),
  signatureCase('java mysql deadlock', 'deadlock', 'strong', ['different orders'], {
    type: 'com.mysql.cj.jdbc.exceptions.MySQLTransactionRollbackException',
    value: 'Deadlock found when trying to get lock; try restarting transaction',
  }),
  signatureCase(
    'go goroutines asleep',
    'deadlock',
    'partial',
    ["Go runtime report 'all goroutines are asleep'"],
    { title: 'fatal error: all goroutines are asleep - deadlock!', level: 'fatal' },
  ),
  // schema and migrations
  signatureCase('python UndefinedTable', 'schema-mismatch', 'strong', ["table 'invoices'"], {
    type: 'UndefinedTable',
    value: 'relation "invoices" does not exist\nLINE 1: SELECT * FROM invoices',
  }),
  signatureCase('node sqlite no such table', 'schema-mismatch', 'partial', ["table 'sessions'"], {
    type: 'SqliteError',
    value: 'no such table: sessions',
  }),
  signatureCase(
    'java missing column',
    'schema-mismatch',
    'strong',
    ["column 'orders.discount_code'"],
    {
      type: 'org.springframework.jdbc.BadSqlGrammarException',
      value:
        'PreparedStatementCallback; bad SQL grammar; nested exception is org.postgresql.util.PSQLException: ERROR: column "discount_code" of relation "orders" does not exist',
    },
  ),
  signatureCase('go pq column', 'schema-mismatch', 'partial', ["column 'archived_at'"], {
    type: '*pq.Error',
    value: 'pq: column "archived_at" does not exist',
  }),
  signatureCase(
    'python migration culprit only',
    'schema-mismatch',
    'location',
    ['a table or column'],
    { title: 'Job failed', culprit: 'alembic.runtime.migration in run_migrations', frames: [] },
    'alembic.runtime.migration in run_migrations',
  ),
  // unique constraints
  signatureCase(
    'python UniqueViolation',
    'unique-violation',
    'strong',
    ["constraint 'users_email_key'"],
    {
      type: 'UniqueViolation',
      value:
        'duplicate key value violates unique constraint "users_email_key"\nDETAIL:  Key (email)=(a@b.example) already exists.',
    },
  ),
  signatureCase('node ER_DUP_ENTRY', 'unique-violation', 'partial', ["key 'users.email_unique'"], {
    type: 'Error',
    value: "ER_DUP_ENTRY: Duplicate entry 'a@b.example' for key 'users.email_unique'",
  }),
  signatureCase(
    'java DataIntegrityViolation',
    'unique-violation',
    'strong',
    ["constraint 'orders_pkey'"],
    {
      type: 'org.springframework.dao.DataIntegrityViolationException',
      value:
        'could not execute statement; SQL [n/a]; constraint [orders_pkey]; nested exception: ERROR: duplicate key value violates unique constraint "orders_pkey"',
    },
  ),
  signatureCase('go sqlite unique', 'unique-violation', 'partial', ["column 'users.email'"], {
    type: 'sqlite3.Error',
    value: 'UNIQUE constraint failed: users.email',
  }),
  // connection pools
  signatureCase('python QueuePool', 'pool-exhausted', 'strong', ['pool limit 5 + overflow 10'], {
    type: 'sqlalchemy.exc.TimeoutError',
    value: 'QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30.00',
  }),
  signatureCase(
    'java Hikari',
    'pool-exhausted',
    'strong',
    ["pool 'HikariPool-1' (waited 30000 ms)"],
    {
      type: 'java.sql.SQLTransientConnectionException',
      value: 'HikariPool-1 - Connection is not available, request timed out after 30000ms.',
    },
  ),
  signatureCase('node knex pool', 'pool-exhausted', 'strong', ['the connection pool'], {
    type: 'KnexTimeoutError',
    value:
      'Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?',
  }),
  signatureCase('go too many clients', 'pool-exhausted', 'partial', ['connection limit'], {
    type: '*pq.Error',
    value: 'pq: remaining connection slots are reserved for non-replication superuser connections',
  }),
];
