import { frame } from '../analyzers/error-contexts.js';
import { type SignatureCase, signatureCase } from './signature-case.js';

/** Rules-analyzer signature cases: Data and build mismatches, and host resources. */
export const INPUT_CASES: SignatureCase[] = [
  // JSON
  signatureCase(
    'python JSONDecodeError',
    'malformed-json',
    'strong',
    ['position line 1 column 1 (expected value)'],
    { type: 'JSONDecodeError', value: 'Expecting value: line 1 column 1 (char 0)' },
  ),
  signatureCase(
    'node JSON.parse HTML',
    'malformed-json',
    'strong',
    ["the token '<' at position 0"],
    {
      type: 'SyntaxError',
      value: 'Unexpected token < in JSON at position 0',
    },
  ),
  signatureCase('java Jackson', 'malformed-json', 'strong', ["character '<'"], {
    type: 'com.fasterxml.jackson.core.JsonParseException',
    value: "Unexpected character ('<' (code 60)): expected a valid value",
  }),
  signatureCase('go invalid character', 'malformed-json', 'strong', ["character '<'"], {
    type: '*json.SyntaxError',
    value: "invalid character '<' looking for beginning of value",
  }),
  // modules
  signatureCase('python ModuleNotFoundError', 'module-not-found', 'strong', ["module 'redis'"], {
    type: 'ModuleNotFoundError',
    value: "No module named 'redis'",
  }),
  signatureCase(
    'node Cannot find module',
    'module-not-found',
    'partial',
    ["module 'lodash/merge'"],
    {
      type: 'Error',
      value: "Cannot find module 'lodash/merge'\nRequire stack:\n- /app/dist/index.js",
    },
  ),
  signatureCase(
    'java ClassNotFoundException',
    'module-not-found',
    'strong',
    ["class 'com.mysql.cj.jdbc.Driver'"],
    { type: 'java.lang.ClassNotFoundException', value: 'com.mysql.cj.jdbc.Driver' },
  ),
  // assertions and validation
  signatureCase(
    'python assert',
    'assertion-failed',
    'strong',
    ["assertion 'order.total >= 0'"],
    {
      type: 'AssertionError',
      value: null,
      frames: [
        frame('app/billing.py', 'charge', 17, "    assert order.total >= 0, 'negative total'"),
      ],
    },
    'app/billing.py:17 in charge',
  ),
  signatureCase('node assert', 'assertion-failed', 'strong', ['assertion'], {
    type: 'AssertionError',
    value: 'The expression evaluated to a falsy value:\n\n  assert.ok(invoice.lines.length > 0)\n',
  }),
  signatureCase('python ValueError int', 'invalid-input', 'strong', ["input value 'abc'"], {
    type: 'ValueError',
    value: "invalid literal for int() with base 10: 'abc'",
  }),
  signatureCase('python pydantic', 'invalid-input', 'strong', ['model CreateOrder (2 invalid)'], {
    type: 'pydantic_core._pydantic_core.ValidationError',
    value: '2 validation errors for CreateOrder\nquantity\n  Input should be greater than 0',
  }),
  signatureCase('java NumberFormatException', 'invalid-input', 'strong', ["input value '12a'"], {
    type: 'java.lang.NumberFormatException',
    value: 'For input string: "12a"',
  }),
  signatureCase('go strconv', 'invalid-input', 'strong', ["input value 'x1'"], {
    type: '*strconv.NumError',
    value: 'strconv.Atoi: parsing "x1": invalid syntax',
  }),
  // memory, disk, permissions
  signatureCase(
    'node heap out of memory',
    'out-of-memory',
    'partial',
    ["kind 'JavaScript heap out of memory'"],
    {
      type: 'Error',
      value: 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
      level: 'fatal',
    },
  ),
  signatureCase('java OutOfMemoryError', 'out-of-memory', 'strong', ["kind 'Java heap space'"], {
    type: 'java.lang.OutOfMemoryError',
    value: 'Java heap space',
    title: 'OutOfMemoryError: Java heap space',
  }),
  signatureCase('python MemoryError', 'out-of-memory', 'partial', ['memory exhaustion'], {
    type: 'MemoryError',
    value: null,
  }),
  signatureCase('go OOMKilled', 'out-of-memory', 'partial', ["kind 'OOMKilled'"], {
    title: 'worker exited: OOMKilled (exit code 137)',
  }),
  signatureCase('python disk full', 'disk-full', 'strong', ["path '/var/lib/app/uploads/tmp123'"], {
    type: 'OSError',
    value: "[Errno 28] No space left on device: '/var/lib/app/uploads/tmp123'",
  }),
  signatureCase('node ENOSPC', 'disk-full', 'partial', ["path '/data/exports/report.csv'"], {
    type: 'Error',
    value: "ENOSPC: no space left on device, open '/data/exports/report.csv'",
  }),
  signatureCase('go disk full', 'disk-full', 'partial', ["path '/var/log/app.log'"], {
    type: '*fs.PathError',
    value: 'write /var/log/app.log: no space left on device',
  }),
  signatureCase(
    'python PermissionError',
    'permission-denied',
    'strong',
    ["path '/etc/app/secrets.yaml'"],
    {
      type: 'PermissionError',
      value: "[Errno 13] Permission denied: '/etc/app/secrets.yaml'",
    },
  ),
  signatureCase('node EACCES', 'permission-denied', 'partial', ["path '/var/run/app.sock'"], {
    type: 'Error',
    value: "EACCES: permission denied, open '/var/run/app.sock'",
  }),
  signatureCase(
    'java AccessDeniedException',
    'permission-denied',
    'partial',
    ["path '/opt/app/config/application.yml'"],
    { type: 'java.nio.file.AccessDeniedException', value: '/opt/app/config/application.yml' },
  ),
  signatureCase('go permission denied', 'permission-denied', 'partial', ["path '/data/cache.db'"], {
    type: '*fs.PathError',
    value: 'open /data/cache.db: permission denied',
  }),
];
