import { describe, expect, it } from 'vitest';
import {
  type ParsedCallback,
  parseCallbackData,
  parseCallbackUpdate,
} from '../../src/features/cards/callback-data.js';

const NONCE = '0123456789abcdef';

function update(query: Record<string, unknown>): unknown {
  return { update_id: 7, callback_query: query };
}

describe('parseCallbackUpdate (spec, Callback handling order, steps 1 and 2)', () => {
  it.each<[string, unknown, ReturnType<typeof parseCallbackUpdate>]>([
    ['a message, not a callback', { update_id: 1, message: { text: 'hi' } }, 'not_callback'],
    ['a null callback_query', { update_id: 1, callback_query: null }, 'not_callback'],
    ['no update at all', null, 'not_callback'],
    ['a callback_query that is not an object', { callback_query: 'approve' }, 'invalid'],
    ['no callback id', update({ data: `approve:a1:${NONCE}`, from: { id: 1 } }), 'invalid'],
    [
      'an empty callback id',
      update({ id: '', data: `approve:a1:${NONCE}`, from: { id: 1 } }),
      'invalid',
    ],
    ['no data', update({ id: 'c', from: { id: 1 } }), 'invalid'],
    ['empty data', update({ id: 'c', data: '', from: { id: 1 } }), 'invalid'],
    ['data that is not a string', update({ id: 'c', data: 42, from: { id: 1 } }), 'invalid'],
    ['no user', update({ id: 'c', data: `approve:a1:${NONCE}` }), 'invalid'],
    ['no user id', update({ id: 'c', data: `approve:a1:${NONCE}`, from: {} }), 'invalid'],
    [
      'a user id that is not an integer',
      update({ id: 'c', data: 'approve:a:b', from: { id: 1.5 } }),
      'invalid',
    ],
    [
      'data without its parts',
      update({ id: 'c', data: 'approve-only', from: { id: 1 } }),
      'invalid',
    ],
    ['data without a nonce', update({ id: 'c', data: 'approve:a1:', from: { id: 1 } }), 'invalid'],
    [
      'a card button',
      update({ id: 'c', data: `approve:a1:${NONCE}`, from: { id: 42 } }),
      { callbackId: 'c', userId: 42, action: 'approve', approvalId: 'a1', nonce: NONCE },
    ],
  ])('%s', (_case, input, expected) => {
    expect(parseCallbackUpdate(input)).toEqual(expected);
  });
});

/**
 * The handler used to split the data on every colon and refuse anything but three non-empty
 * parts, while the card side split at the first and last colon. The contract decides:
 * `callback_data` is `<action>:<approval_id>:<nonce>`, and neither an action nor a nonce (16
 * lower-case hex characters) holds a colon, so whatever lies between the first and the last
 * colon is the approval id. Such data goes on to the gateway's checks (step 3), which answer
 * `Invalid nonce` for a nonce no card holds, instead of `Invalid callback data` (step 2).
 */
describe('inputs the two callback parsers disagreed on', () => {
  it.each<[string, string, Omit<ParsedCallback, 'callbackId' | 'userId'>]>([
    [
      'a colon inside the approval id',
      `reject:a:b:${NONCE}`,
      { action: 'reject', approvalId: 'a:b', nonce: NONCE },
    ],
    [
      'several colons inside the approval id',
      `approve:ns:team:a1:${NONCE}`,
      { action: 'approve', approvalId: 'ns:team:a1', nonce: NONCE },
    ],
    [
      'an approval id ending in a colon',
      `approve:a1::${NONCE}`,
      { action: 'approve', approvalId: 'a1:', nonce: NONCE },
    ],
    [
      'an approval id that is a colon',
      `details:::${NONCE}`,
      { action: 'details', approvalId: ':', nonce: NONCE },
    ],
  ])('%s (was Invalid callback data)', (_case, data, parsed) => {
    expect(parseCallbackData(data)).toEqual(parsed);
    expect(parseCallbackUpdate(update({ id: 'c', data, from: { id: 9 } }))).toEqual({
      callbackId: 'c',
      userId: 9,
      ...parsed,
    });
  });
});
