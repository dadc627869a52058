import { type FailureSignature, TEXT, TYPE, WHERE } from './signature-types.js';

/**
 * Failure signatures where data or the build did not match what the code expects: unparsable
 * JSON, invalid input, failed assertions and missing modules.
 */
export const INPUT_SIGNATURES: readonly FailureSignature[] = [
  {
    id: 'malformed-json',
    name: 'Malformed JSON / deserialization failure',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:JSONDecodeError|Json(?:Parse|EOF|Mapping)Exception|MismatchedInputException|InvalidFormatException|\*?json\.(?:SyntaxError|UnmarshalTypeError))$/,
        weight: 0.45,
      },
      { fields: TYPE, pattern: /^SyntaxError$/, weight: 0.15 },
      {
        fields: TEXT,
        pattern:
          /Expecting (?:value|property name enclosed in double quotes|'.' delimiter): line \d+ column \d+/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /in JSON at position \d+|is not valid JSON|Unexpected end of JSON input|Unexpected non-whitespace character after JSON/i,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /invalid character '.{1,4}' (?:looking for beginning|after|in string)|json: cannot unmarshal/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /Unexpected character \('.{1,4}' \(code \d+\)\)|Cannot deserialize value of type|Unrecognized token '/,
        weight: 0.5,
      },
      {
        fields: WHERE,
        pattern:
          /json[/\\]decoder\.py|\bjson\.loads?\(|JSON\.parse|com\.fasterxml\.jackson|encoding\/json/,
        weight: 0.3,
      },
    ],
    subject: {
      label: 'position',
      unknown: 'the start of the input',
      extractors: [
        {
          fields: TEXT,
          pattern: /Unexpected token (?<t>\S{1,3}) in JSON at position (?<p>\d+)/,
          template: "token '{t}' at position {p}",
          label: 'the',
        },
        {
          fields: TEXT,
          pattern: /Unexpected token '(?<t>[^']{1,3})', /,
          template: "token '{t}'",
          label: 'the',
        },
        {
          fields: TEXT,
          pattern: /(?:invalid character |Unexpected character \()'(?<t>[^']{1,4})'/,
          template: "'{t}'",
          label: 'character',
        },
        {
          fields: TEXT,
          pattern:
            /Expecting (?<w>value|property name|'.' delimiter)[^:]{0,40}: line (?<l>\d+) column (?<c>\d+)/,
          template: 'line {l} column {c} (expected {w})',
        },
        {
          fields: TEXT,
          pattern:
            /cannot unmarshal (?<s>\w+) into Go (?:struct field|value of type) (?<d>[\w.[\]*]{1,80})/,
          template: '{s} into {d}',
          label: 'type mismatch',
        },
      ],
    },
    rootCause:
      'The payload parsed at {location} is not the JSON the code expects (the parser stopped at {subject}). Usually the other side returned an HTML error page or an empty body (a leading "<" or an empty input), the body was truncated, or a field has a different type than the code declares.',
    impact:
      'Every call that receives this payload fails at {location} in {project}; if the payload comes from an upstream, all calls fail for as long as it misbehaves.',
    fix: 'At {location}, check the HTTP status and Content-Type before parsing, log a short excerpt of the body on failure, and fix the producer or the declared type that disagrees.',
    prevention:
      'Validate parsed payloads against a schema and treat non-2xx or non-JSON responses as errors before parsing; add a contract test with the producer.',
  },
  {
    id: 'invalid-input',
    name: 'Input validation failure',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:ValidationError|NumberFormatException|ZodError|\*?strconv\.NumError|InvalidInputException)$/,
        weight: 0.45,
      },
      {
        fields: TYPE,
        pattern: /(?:^|\.)(?:ValueError|IllegalArgumentException|ArgumentException)$/,
        weight: 0.3,
      },
      {
        fields: TEXT,
        pattern:
          /invalid literal for int\(\) with base \d+|could not convert string to float|For input string: "|strconv\.\w+: parsing "/,
        weight: 0.55,
      },
      // `(?:^|\D)`: a count is read from the start of its digits, not again from each digit.
      { fields: TEXT, pattern: /(?:^|\D)\d+ validation errors? for \w+/, weight: 0.55 },
      {
        fields: TEXT,
        pattern:
          /"[^"]{1,60}" is required|Invalid enum value|Expected \w+, received \w+|must not be (?:null|blank|empty)/,
        weight: 0.4,
      },
    ],
    subject: {
      label: 'input value',
      unknown: 'an input value',
      extractors: [
        {
          fields: TEXT,
          pattern:
            /(?:with base \d+: |to float: |For input string: |strconv\.\w+: parsing )['"](?<v>[^'"]{0,60})['"]/,
          template: "'{v}'",
        },
        {
          fields: TEXT,
          // From the start of the digits only, as above.
          pattern: /(?:^|\D)(?<n>\d+) validation errors? for (?<m>\w+)/,
          template: '{m} ({n} invalid)',
          label: 'model',
        },
        {
          fields: TEXT,
          pattern: /"(?<f>[^"]{1,60})" is required/,
          template: "'{f}'",
          label: 'field',
        },
      ],
    },
    rootCause:
      'Data reaching {location} failed validation or conversion ({subject} was rejected): a client sent a value of the wrong format, or an internal producer changed its format.',
    impact:
      'Requests or jobs carrying such values fail at {location} in {project}; if the value comes from an internal producer, every one of them fails.',
    fix: 'Decide whether the value is legitimately possible. If it is, accept or normalise it at {location}; if not, reject it at the API boundary with a 4xx and a clear message instead of failing deep inside.',
    prevention:
      'Validate and convert input once at the boundary with a schema, and return validation errors to the caller rather than raising them as server errors.',
  },
  {
    id: 'assertion-failed',
    name: 'Failed assertion / broken invariant',
    matchers: [
      { fields: TYPE, pattern: /(?:^|\.)AssertionError$/, weight: 0.45 },
      {
        fields: TEXT,
        pattern: /\bAssertionError\b|\[ERR_ASSERTION\]|assertion failed|Assertion `[^`]+' failed/i,
        weight: 0.45,
      },
      {
        fields: ['frame'],
        pattern: /^\s*assert\b|\bassert(?:\.\w+)?\(|Preconditions\.check|\binvariant\(/,
        weight: 0.3,
      },
    ],
    subject: {
      label: 'assertion',
      unknown: 'an internal assertion',
      extractors: [
        { fields: ['frame'], pattern: /^\s*assert\s+(?<a>[^,#\n]{1,80})/, template: "'{a}'" },
        {
          fields: ['frame'],
          pattern: /\bassert(?:\.\w+)?\((?<a>[^;\n]{1,80})\)/,
          template: "'{a}'",
        },
        {
          fields: ['value'],
          pattern: /^(?<m>[^\n]{1,80})/,
          template: "'{m}'",
          label: 'assertion message',
        },
      ],
    },
    rootCause:
      'Code at {location} checks {subject}, and it did not hold: the program reached a state its author considered impossible, so the real defect is in whatever produced that state upstream.',
    impact:
      'The operation at {location} in {project} stops instead of continuing with inconsistent data.',
    fix: 'Reproduce with the failing input and find where the invariant checked at {location} first breaks; fix that producer rather than removing the assertion.',
    prevention:
      'Turn the invariant into a validated type or a schema check where the data is created, and add a regression test for this case.',
  },
  {
    id: 'module-not-found',
    name: 'Missing module / class',
    matchers: [
      {
        fields: TYPE,
        pattern:
          /(?:^|\.)(?:ModuleNotFoundError|ImportError|ClassNotFoundException|NoClassDefFoundError)$/,
        weight: 0.45,
      },
      {
        fields: TEXT,
        pattern:
          /No module named '[^']+'|cannot import name '[^']+'|Cannot find (?:module|package) '[^']+'|ERR_MODULE_NOT_FOUND/,
        weight: 0.55,
      },
      {
        fields: TEXT,
        pattern:
          /\bClassNotFoundException\b|\bNoClassDefFoundError\b|Could not initialize class|cannot open shared object file/,
        weight: 0.45,
      },
      {
        fields: WHERE,
        pattern: /importlib|Module\._resolveFilename|ClassLoader\.loadClass|URLClassLoader/,
        weight: 0.3,
      },
    ],
    subject: {
      label: 'module',
      unknown: 'a module',
      extractors: [
        {
          fields: TEXT,
          pattern: /cannot import name '(?<n>[^']+)' from '(?<f>[^']+)'/,
          template: "'{n}' from '{f}'",
          label: 'name',
        },
        {
          fields: TEXT,
          pattern: /(?:No module named|Cannot find (?:module|package)) '(?<m>[^']+)'/,
          template: "'{m}'",
        },
        {
          fields: TEXT,
          pattern: /Could not initialize class (?<c>[\w.$]+)/,
          template: "'{c}'",
          label: 'class',
        },
        { fields: ['value'], pattern: /^(?<c>[\w.$/]+)$/, template: "'{c}'", label: 'class' },
        {
          fields: TEXT,
          // The whole file name from its start, checked once for `.so` by the lookahead (which
          // does not backtrack): `[\w.+-]+\.so[\w.]*` tried every `.so` from every start, cubic.
          pattern: /(?:^|[^\w.+-])(?=[\w.+-]*?\.so)(?<l>[\w.+-]+): cannot open shared object/,
          template: "'{l}'",
          label: 'shared library',
        },
      ],
    },
    rootCause:
      'The {project} runtime could not load {subject} when {location} ran: the dependency is not installed in this image, the installed version does not export it, or a path/package name changed without the code following.',
    impact:
      'Everything that imports this code path in {project} fails; usually a whole endpoint or worker is down since the last deploy.',
    fix: 'Add or pin the dependency that provides {subject} (requirements/package.json/pom/go.mod), rebuild the image, and check that the import path matches the installed version.',
    prevention:
      'Build from a lockfile, import every module in a CI smoke test of the built image, and fail the deploy when startup imports fail.',
  },
];
