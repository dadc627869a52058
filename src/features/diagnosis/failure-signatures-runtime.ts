import { type FailureSignature, TEXT, TYPE } from './signature-types.js';

/**
 * Failure signatures of the runtime and the host: division by zero, runaway recursion,
 * unsafe concurrent access, memory, disk and permissions.
 */
export const RUNTIME_SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'division-by-zero',
    name: 'Division by zero',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:ZeroDivisionError|DivideByZeroException)$/,
        weight: 0.45,
      },
      { fields: TYPE, pattern: /(?:^|\.)ArithmeticException$/, weight: 0.3 },
      {
        fields: TEXT,
        pattern: /division (?:or modulo )?by zero|divide by zero|\/ by zero|modulo by zero/i,
        weight: 0.55,
      },
    ],
    subject: {
      label: 'divisor',
      unknown: 'a divisor',
      extractors: [
        {
          fields: ['frame'],
          pattern: /[\w)\]]\s*(?:\/\/?|%)\s*(?<d>[A-Za-z_][\w.]{0,60})/,
          template: "'{d}'",
        },
      ],
    },
    rootCause:
      'Code at {location} divided by {subject} while it was zero: typically a count or total of an empty set (no items, no elapsed time, no samples).',
    impact: 'Requests or jobs where {subject} is zero fail at {location} in {project}.',
    fix: 'Guard the division at {location}: decide what the result means for an empty input (0, null, or "not applicable") and return that instead of dividing.',
    prevention:
      'Add tests with empty and zero-valued inputs for every ratio or average; centralise ratio helpers that handle the zero case once.',
  },
  {
    id: 'stack-overflow',
    name: 'Unbounded recursion / stack overflow',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:RecursionError|StackOverflowError|StackOverflowException)$/,
        weight: 0.45,
      },
      { fields: TYPE, pattern: /^RangeError$/, weight: 0.1 },
      {
        fields: TEXT,
        pattern:
          /maximum recursion depth exceeded|Maximum call stack size exceeded|goroutine stack exceeds \d+-byte limit/,
        weight: 0.6,
      },
      { fields: TEXT, pattern: /\bStackOverflowError\b|\bstack overflow\b/i, weight: 0.45 },
    ],
    subject: {
      label: 'limit',
      unknown: 'the stack limit',
      extractors: [
        {
          fields: TEXT,
          pattern: /goroutine stack exceeds (?<b>\d+)-byte limit/,
          template: '{b} bytes',
        },
      ],
    },
    rootCause:
      'A call chain through {location} recursed until it exhausted {subject}: a recursion without a reachable base case, a cycle in the data being walked (parent/child loops, self references), or two functions calling each other (for example toJSON/serialisers or property getters).',
    impact:
      'The request or job that triggers the recursion fails at {location} in {project}, after burning CPU and memory on the way.',
    fix: 'Find the repeating frames around {location} and add the missing base case or cycle detection (a visited set), or rewrite the walk iteratively.',
    prevention:
      'Test the recursive code with cyclic and deeply nested inputs; bound recursion depth explicitly where input shape is not controlled.',
  },
  {
    id: 'concurrent-modification',
    name: 'Concurrent modification of a collection',
    matchers: [
      { fields: TYPE, pattern: /(?:^|\.)ConcurrentModificationException$/, weight: 0.5 },
      { fields: TYPE, pattern: /^RuntimeError$/, weight: 0.1 },
      {
        fields: TEXT,
        pattern: /concurrent map (?:writes|read and map write|iteration and map write)/,
        weight: 0.6,
      },
      {
        fields: TEXT,
        pattern: /(?:dictionary|set|deque|OrderedDict) (?:changed size|mutated) during iteration/,
        weight: 0.55,
      },
    ],
    subject: {
      label: 'collection',
      unknown: 'a shared collection',
      extractors: [
        {
          fields: TEXT,
          pattern: /(?<c>dictionary|set|deque|OrderedDict) (?:changed size|mutated)/,
          template: '{c}',
          label: 'a',
        },
        { fields: TEXT, pattern: /concurrent (?<c>map) /, template: '{c}', label: 'a Go' },
      ],
    },
    rootCause:
      'Code at {location} modified {subject} while it was being iterated or while another goroutine/thread used it: a loop that adds or removes entries as it walks, or shared state without a lock.',
    impact:
      'Intermittent failures at {location} in {project}; under load they become more frequent, and in Go this kind of fault kills the whole process.',
    fix: 'At {location}, iterate over a copy (list(d.items()), new ArrayList<>(list)) or collect changes and apply them after the loop; guard shared maps with a mutex or use a concurrent collection.',
    prevention:
      'Run tests with the race detector (go test -race) or concurrency stress tests; avoid shared mutable collections across threads.',
  },
  {
    id: 'out-of-memory',
    name: 'Out of memory',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:MemoryError|OutOfMemoryError|OutOfMemoryException|OOMKilled)$/,
        weight: 0.5,
      },
      {
        fields: TEXT,
        pattern:
          /JavaScript heap out of memory|Reached heap limit|OutOfMemoryError|Java heap space|GC overhead limit exceeded|unable to create (?:new )?native thread|cannot allocate memory|out of memory|\bOOMKilled\b|\bOOM[- ]?kill|\bENOMEM\b/i,
        weight: 0.6,
      },
    ],
    subject: {
      label: 'kind',
      unknown: 'memory exhaustion',
      extractors: [
        { fields: TEXT, pattern: /OutOfMemoryError: (?<k>[^\n]{3,60})/, template: "'{k}'" },
        {
          fields: TEXT,
          pattern:
            /(?<k>JavaScript heap out of memory|GC overhead limit exceeded|Java heap space|OOMKilled|cannot allocate memory|Metaspace|Direct buffer memory)/i,
          template: "'{k}'",
        },
      ],
    },
    rootCause:
      'The process for {project} ran out of memory ({subject}) while running {location}: a request or job loads too much at once (an unbounded query or file read into memory), memory leaks across requests (caches or listeners that only grow), or the limit is below the real working set.',
    impact:
      'The {project} process crashes or is killed, so every in-flight request or job on that instance fails, and it may restart in a loop.',
    fix: 'Check the memory graph before the crash: a sawtooth that keeps rising means a leak (take a heap dump/profile), a sudden spike means one large operation near {location} (stream or paginate it). Raise the limit only once the working set is understood.',
    prevention:
      'Bound every query and upload (pagination, size limits), cap cache sizes, and alert on memory at 80% of the container limit.',
  },
  {
    id: 'disk-full',
    name: 'Disk full',
    matchers: [
      { fields: TYPE, pattern: /^OSError$|^IOException$/, weight: 0.1 },
      {
        fields: TEXT,
        pattern:
          /\bENOSPC\b|No space left on device|Disk quota exceeded|\bEDQUOT\b|could not extend file|not enough space on the disk/i,
        weight: 0.65,
      },
    ],
    subject: {
      label: 'path',
      unknown: 'the volume being written',
      extractors: [
        {
          fields: TEXT,
          pattern:
            /No space left on device: '(?<p>[^']+)'|no space left on device, \w+ '(?<q>[^']+)'|could not extend file "(?<r>[^"]+)"/,
          template: "'{p}{q}{r}'",
        },
        {
          fields: TEXT,
          // Read from the start of the path's token to its first `/`: starting at every `/`
          // rescanned the rest of the token each time, quadratically.
          pattern: /(?:^|[\s:])[^\s:/]*(?<p>\/[^\s:]+): no space left on device/i,
          template: "'{p}'",
        },
      ],
    },
    rootCause:
      'A write at {location} to {subject} failed because the filesystem is full: logs, temp files, uploads or database files grew without rotation or cleanup, or the volume is too small for the data.',
    impact:
      'Every write on that volume fails in {project}, which can corrupt half-written files and stop databases or queues stored there.',
    fix: 'Free space now (rotate/compress logs, delete temp files, expand the volume), then find what filled it (du -sh on the mount) and add rotation or cleanup for it.',
    prevention:
      'Alert on disk usage at 80%, rotate logs, clean temp files, and put growing data on volumes sized with headroom.',
  },
  {
    id: 'permission-denied',
    name: 'Permission denied',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:PermissionError|AccessDeniedException|AccessDenied|AccessControlException|InsufficientPrivilege|PermissionDenied)$/,
        weight: 0.5,
      },
      {
        fields: TEXT,
        pattern:
          /\bEACCES\b|\bEPERM\b|permission denied|Operation not permitted|\bAccessDenied\b|Access Denied|is not authorized to perform|insufficient privilege|must be owner of/i,
        weight: 0.55,
      },
      { fields: TEXT, pattern: /\b403\b|\bForbidden\b/, weight: 0.4 },
    ],
    subject: {
      label: 'path',
      unknown: 'a protected resource',
      extractors: [
        {
          fields: TEXT,
          pattern: /Permission denied: '(?<p>[^']+)'|(?:EACCES|EPERM): [\w ]+, \w+ '(?<q>[^']+)'/i,
          template: "'{p}{q}'",
        },
        {
          fields: TEXT,
          // From the start of the token, as for "no space left" above.
          pattern:
            /(?:^|[\s:])[^\s:/]*(?<p>\/[^\s:]+): (?:permission denied|operation not permitted)/i,
          template: "'{p}'",
        },
        {
          fields: TEXT,
          pattern:
            /permission denied for (?<k>table|relation|schema|sequence|database|function) (?<o>[\w.]+)/i,
          template: "{k} '{o}'",
          label: 'database',
        },
        {
          fields: TEXT,
          pattern: /is not authorized to perform: (?<a>[\w:*-]+)/,
          template: "'{a}'",
          label: 'action',
        },
        {
          fields: TEXT,
          pattern: /listen EACCES: permission denied (?<a>[\w.:[\]]+)/,
          template: "'{a}'",
          label: 'listen address',
        },
        { fields: ['value'], pattern: /^(?<p>\/\S+)$/, template: "'{p}'" },
      ],
    },
    rootCause:
      'Code at {location} was denied access to {subject}: the process user, service account or database role lacks the needed permission (file ownership/mode, an IAM policy, a GRANT), often after an image, volume or role change.',
    impact:
      'Every operation in {project} that needs {subject} fails until the permission is granted; retries cannot help.',
    fix: 'Check which identity {project} runs as and grant it exactly the access to {subject} it needs (chown/chmod or fsGroup for volumes, the IAM action, or GRANT for the database role).',
    prevention:
      'Declare required permissions next to the deployment (IAM policy, securityContext, migrations with GRANTs) and test them in a staging environment with the same identity.',
  },
];
