import { type FailureSignature, TEXT, TYPE } from './signature-types.js';

/**
 * Failure signatures of programming defects: the code itself did something invalid. Texts
 * are cross-language on purpose (Python, JavaScript/TypeScript, Java, Go); the specifics come
 * from the extracted subject and the frame location.
 */
export const CODE_SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'null-dereference',
    name: 'Null / undefined dereference',
    matchers: [
      { fields: TYPE, pattern: /(?:^|\.)Null(?:Pointer|Reference)Exception$/, weight: 0.45 },
      {
        fields: TYPE,
        pattern: /^(?:AttributeError|TypeError)$|^\*?runtime\.\w*[Ee]rror/,
        weight: 0.15,
      },
      {
        fields: TEXT,
        pattern: /'NoneType' object (?:has no attribute|is not subscriptable|is not iterable)/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern: /Cannot (?:read|set) propert(?:y '[^']*' of|ies of) (?:undefined|null)\b/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /Cannot destructure property '[^']*' of '?(?:undefined|null)|(?:undefined|null) is not an object \(evaluating/,
        weight: 0.55,
      },
      { fields: TEXT, pattern: /nil pointer dereference/, weight: 0.6 },
      {
        fields: TEXT,
        pattern:
          /Cannot (?:invoke|read field|assign field) "[^"]+" because .{1,80} is null|Object reference not set to an instance/,
        weight: 0.55,
      },
      { fields: TEXT, pattern: /\bNull(?:Pointer|Reference)Exception\b/, weight: 0.4 },
    ],
    subject: {
      label: 'member',
      unknown: 'a member',
      extractors: [
        {
          fields: TEXT,
          pattern: /'NoneType' object has no attribute '(?<a>[^']+)'/,
          template: "'{a}'",
          label: 'attribute',
        },
        {
          fields: TEXT,
          pattern: /\((?:reading|setting) '(?<p>[^']+)'\)/,
          template: "'{p}'",
          label: 'property',
        },
        {
          fields: TEXT,
          pattern: /Cannot (?:read|set|destructure) property '(?<p>[^']*)'/,
          template: "'{p}'",
          label: 'property',
        },
        {
          fields: TEXT,
          pattern: /evaluating '(?<e>[^']{1,80})'/,
          template: "'{e}'",
          label: 'expression',
        },
        {
          fields: TEXT,
          pattern: /Cannot invoke "(?<m>[^"]+)" because "(?<r>[^"]+)" is null/,
          template: '"{m}" (the null reference is "{r}")',
          label: 'method',
        },
        {
          fields: TEXT,
          pattern: /Cannot (?:read|assign) field "(?<f>[^"]+)" because "(?<r>[^"]+)" is null/,
          template: '"{f}" (the null reference is "{r}")',
          label: 'field',
        },
      ],
    },
    rootCause:
      'Code at {location} used a value that was None/null/undefined/nil: it accessed {subject} on a reference that was never set. Such a value usually comes from a lookup that found nothing, an optional field missing from the input, or a dependency that was not initialised.',
    impact:
      'Every request or job that reaches {location} with the missing value fails in {project}.',
    fix: 'At {location}, trace where the value is produced and handle the absent case explicitly (return early, use a default, or raise a descriptive error), or fix the upstream lookup that returned nothing. Do not hide it behind a blanket catch.',
    prevention:
      'Type the value as optional and let the checker enforce the absent case (mypy --strict, TypeScript strictNullChecks, NullAway or @Nullable, nilaway for Go); add a test for the missing-value input.',
  },
  {
    id: 'not-a-function',
    name: 'Call of a non-callable value',
    matchers: [
      { fields: TYPE, pattern: /^TypeError$/, weight: 0.15 },
      { fields: TEXT, pattern: /\bis not a (?:function|constructor)\b/, weight: 0.55 },
      { fields: TEXT, pattern: /'\w+' object is not callable/, weight: 0.55 },
    ],
    subject: {
      label: 'callee',
      unknown: 'a value that is not callable',
      extractors: [
        {
          fields: TEXT,
          // Starts only where a run of callee characters starts: a start at every character of
          // a long run read up to 80 of them again each time.
          pattern: /(?:^|[^\w$.[\]])(?<c>[\w$.[\]]{1,80}) is not a (?:function|constructor)/,
          template: "'{c}'",
        },
        { fields: TEXT, pattern: /'(?<t>\w+)' object is not callable/, template: "of type '{t}'" },
      ],
    },
    rootCause:
      'Code at {location} called {subject} as a function, but at run time it is not one: usually undefined/None because of a wrong import, a renamed method, a library version with a different API, or a property shadowing a method.',
    impact: 'The code path through {location} fails every time it is reached in {project}.',
    fix: 'Check what {subject} really is at {location}: verify the import/export names and the installed library version, and correct the call or the object it is called on.',
    prevention:
      'Enable type checking on this module (TypeScript strict or mypy) so calls of non-callable values are compile errors; pin dependency versions and run the tests on upgrades.',
  },
  {
    id: 'undefined-name',
    name: 'Undefined name / reference',
    matchers: [
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:NameError|ReferenceError|UnboundLocalError)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /\bname '[^']+' is not defined|local variable '[^']+' referenced before assignment|cannot access local variable '[^']+'/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /^(?:ReferenceError: )?[\w$]+ is not defined$|Cannot access '[^']+' before initialization/m,
        weight: 0.5,
      },
    ],
    subject: {
      label: 'name',
      unknown: 'a name',
      extractors: [
        {
          fields: TEXT,
          pattern: /(?:name|local variable|Cannot access) '(?<n>[^']+)'/,
          template: "'{n}'",
        },
        // Starts only where a run of name characters starts, where the leftmost match began
        // anyway: a start at every character of a long run rescanned it, quadratically.
        { fields: TEXT, pattern: /(?:^|[^\w$])(?<n>[\w$]+) is not defined/, template: "'{n}'" },
      ],
    },
    rootCause:
      'Code at {location} refers to {subject}, which is not defined in that scope when the line runs: a missing import, a typo, a variable assigned only on some branches, or a global that only exists in another environment.',
    impact:
      'The code path through {location} fails every time it is reached in {project}; this is a deployment-level defect, not bad input.',
    fix: 'Define or import {subject} at {location}, or make sure every branch assigns it before use.',
    prevention:
      'Run a linter that flags undefined names (ruff F821, ESLint no-undef, TypeScript) in CI and cover the branch with a test.',
  },
  {
    id: 'missing-key',
    name: 'Missing key',
    matchers: [
      { fields: TYPE, pattern: /(?:^|\.)KeyError$/, weight: 0.45 },
      { fields: TYPE, pattern: /(?:^|\.)NoSuchElementException$/, weight: 0.35 },
      {
        fields: TEXT,
        pattern:
          /^KeyError\b|\bKey .{1,60} is missing in the map|map has no entry for key|\bkey not found\b/,
        weight: 0.5,
      },
    ],
    subject: {
      label: 'key',
      unknown: 'a key',
      extractors: [
        { fields: ['value'], pattern: /^'(?<k>[^']*)'$|^"(?<d>[^"]*)"$/, template: "'{k}{d}'" },
        { fields: ['value'], pattern: /^(?<k>-?\d+)$/, template: '{k}' },
        { fields: TEXT, pattern: /KeyError: '(?<k>[^']*)'/, template: "'{k}'" },
        // Kotlin's and Go's messages apart: recheck's exact checker decides each alone, while
        // the two as one alternation are past its limits and its fuzzer misreads `.{1,60}`.
        { fields: TEXT, pattern: /Key (?<k>.{1,60}) is missing in the map/, template: "'{k}'" },
        { fields: TEXT, pattern: /no entry for key "(?<d>[^"]+)"/, template: "'{d}'" },
      ],
    },
    rootCause:
      'Code at {location} looked up {subject} in a dict/map that does not contain it. The data has a different shape than the code assumes: an optional field omitted by a client, a renamed field, or a config entry missing in this environment.',
    impact: 'Requests or jobs whose data lacks {subject} fail at {location} in {project}.',
    fix: 'At {location}, read {subject} with an explicit default or a clear validation error (dict.get / Map.getOrDefault / a presence check), and find out which producer omits it.',
    prevention:
      'Validate input and config at the boundary with a schema (pydantic, zod, JSON Schema) so missing keys are rejected with a clear message before business logic runs.',
  },
  {
    id: 'index-out-of-range',
    name: 'Index out of range',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:IndexError|(?:Array|String)?IndexOutOfBoundsException|ArgumentOutOfRangeException|boundsError)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /\b(?:list|tuple|string) index out of range|Index -?\d+ out of bounds for length \d+/,
        weight: 0.5,
      },
      { fields: TEXT, pattern: /\b(?:index|slice bounds) out of range\b/, weight: 0.55 },
      {
        fields: TEXT,
        pattern: /\bIndex(?:Error|OutOfBoundsException)\b|Invalid (?:typed )?array length/,
        weight: 0.4,
      },
    ],
    subject: {
      label: 'index',
      unknown: 'an index past the end of the sequence',
      extractors: [
        {
          fields: TEXT,
          pattern: /index out of range \[(?<i>-?\d+)\] with length (?<n>\d+)/,
          template: '{i} (length {n})',
        },
        {
          fields: TEXT,
          pattern: /Index (?<i>-?\d+) out of bounds for length (?<n>\d+)/,
          template: '{i} (length {n})',
        },
        {
          fields: TEXT,
          pattern: /slice bounds out of range \[(?<r>[^\]]{1,30})\]/,
          template: '[{r}]',
          label: 'slice',
        },
        {
          fields: TEXT,
          pattern: /\b(?<k>list|tuple|string) index out of range/,
          template: '{k}',
          label: 'index into a',
        },
        { fields: ['value'], pattern: /^(?:Index: )?(?<i>-?\d+)$/, template: '{i}' },
      ],
    },
    rootCause:
      'Code at {location} accessed {subject}: the sequence is shorter than the code assumes, typically an empty result set or list, an off-by-one in a loop, or a split/parse that produced fewer parts than expected.',
    impact: 'Requests or jobs with short or empty data fail at {location} in {project}.',
    fix: 'At {location}, check the length before indexing (or handle the empty case) and correct any off-by-one; if the data should never be short, validate it where it enters.',
    prevention:
      'Prefer iteration or safe accessors over raw indexes; add tests with empty and single-element inputs.',
  },
];
