import { frame } from '../analyzers/error-contexts.js';
import { type SignatureCase, signatureCase } from './signature-case.js';

/** Rules-analyzer signature cases: Programming defects: dereferences, names, keys, indexes, arithmetic, recursion, concurrency. */
export const CODE_CASES: SignatureCase[] = [
  // null / undefined dereference
  signatureCase('python NoneType attribute', 'null-dereference', 'strong', ["attribute 'email'"], {
    type: 'AttributeError',
    value: "'NoneType' object has no attribute 'email'",
  }),
  signatureCase('node undefined property', 'null-dereference', 'strong', ["property 'id'"], {
    type: 'TypeError',
    value: "Cannot read properties of undefined (reading 'id')",
  }),
  signatureCase(
    'java helpful NPE',
    'null-dereference',
    'strong',
    ['"com.acme.User.getEmail()" (the null reference is "user")'],
    {
      type: 'java.lang.NullPointerException',
      value: 'Cannot invoke "com.acme.User.getEmail()" because "user" is null',
    },
  ),
  signatureCase('go nil pointer', 'null-dereference', 'strong', ['None/null/undefined/nil'], {
    type: 'runtime.errorString',
    value: 'runtime error: invalid memory address or nil pointer dereference',
  }),
  signatureCase('node not a function', 'not-a-function', 'strong', ["callee 'user.getName'"], {
    type: 'TypeError',
    value: 'user.getName is not a function',
  }),
  signatureCase('python undefined name', 'undefined-name', 'strong', ["name 'requests'"], {
    type: 'NameError',
    value: "name 'requests' is not defined",
  }),
  // keys and indexes
  signatureCase('python KeyError', 'missing-key', 'strong', ["key 'user_id'"], {
    type: 'KeyError',
    value: "'user_id'",
  }),
  signatureCase('python IndexError', 'index-out-of-range', 'strong', ['index into a list'], {
    type: 'IndexError',
    value: 'list index out of range',
  }),
  signatureCase('java array index', 'index-out-of-range', 'strong', ['index 5 (length 3)'], {
    type: 'java.lang.ArrayIndexOutOfBoundsException',
    value: 'Index 5 out of bounds for length 3',
  }),
  signatureCase('go index out of range', 'index-out-of-range', 'strong', ['index 7 (length 2)'], {
    type: 'runtime.boundsError',
    value: 'runtime error: index out of range [7] with length 2',
  }),
  // arithmetic, recursion, concurrency
  signatureCase(
    'python ZeroDivisionError',
    'division-by-zero',
    'strong',
    ["divisor 'count'"],
    {
      type: 'ZeroDivisionError',
      value: 'division by zero',
      frames: [frame('app/stats.py', 'average', 9, '    return total / count')],
    },
    'app/stats.py:9 in average',
  ),
  signatureCase('java divide by zero', 'division-by-zero', 'strong', ['divisor'], {
    type: 'java.lang.ArithmeticException',
    value: '/ by zero',
  }),
  signatureCase('go integer divide', 'division-by-zero', 'partial', ['divisor'], {
    type: 'runtime.errorString',
    value: 'runtime error: integer divide by zero',
  }),
  signatureCase('python RecursionError', 'stack-overflow', 'strong', ['recursed'], {
    type: 'RecursionError',
    value: 'maximum recursion depth exceeded while calling a Python object',
  }),
  signatureCase('node call stack', 'stack-overflow', 'strong', ['recursed'], {
    type: 'RangeError',
    value: 'Maximum call stack size exceeded',
  }),
  signatureCase('java StackOverflowError', 'stack-overflow', 'strong', ['recursed'], {
    type: 'java.lang.StackOverflowError',
    value: null,
  }),
  signatureCase('go goroutine stack', 'stack-overflow', 'partial', ['limit 1000000000 bytes'], {
    title: 'runtime: goroutine stack exceeds 1000000000-byte limit',
    level: 'fatal',
  }),
  signatureCase('go concurrent map writes', 'concurrent-modification', 'partial', ['a Go map'], {
    title: 'fatal error: concurrent map writes',
    level: 'fatal',
  }),
  signatureCase(
    'java ConcurrentModification',
    'concurrent-modification',
    'partial',
    ['a shared collection'],
    {
      type: 'java.util.ConcurrentModificationException',
      value: null,
    },
  ),
  signatureCase('python dict changed size', 'concurrent-modification', 'strong', ['a dictionary'], {
    type: 'RuntimeError',
    value: 'dictionary changed size during iteration',
  }),
];
