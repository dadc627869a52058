import { describe, expect, it } from 'vitest';
import {
  consoleAddress,
  type DigestLine,
  renderCardDigest,
  severityRank,
} from '../../src/features/cards/card-digest.js';
import { parseCardCommand } from '../../src/features/chat/card-command.js';

const line = (severity: string, alertName: string, hitCount = 1): DigestLine => ({
  severity,
  alertName,
  namespace: 'payments',
  hitCount,
});

describe('card digest text (CONTRACT, Chat under storms)', () => {
  it('starts with `<n> new incidents`, most severe first, and ends with the console', () => {
    const text = renderCardDigest(
      4,
      [line('P2', 'Warn'), line('P3', 'Info'), line('P0', 'Outage', 7), line('P1', 'Crit')],
      'http://127.0.0.1:8080/console/',
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('4 new incidents');
    expect(lines.slice(1, 5)).toEqual([
      '🔴 P0 · Outage · payments · x7',
      '🟠 P1 · Crit · payments · x1',
      '🟡 P2 · Warn · payments · x1',
      '🟢 P3 · Info · payments · x1',
    ]);
    expect(text).not.toContain('more');
    expect(lines.at(-2)).toBe('Decide in the console: http://127.0.0.1:8080/console/');
  });

  it('shows at most 10 lines and says how many more it stands for', () => {
    const lines = Array.from({ length: 25 }, (_, i) => line('P2', `Alert${i}`, i));
    const text = renderCardDigest(300, lines, 'https://ops.example.com/console/');
    const shown = text.split('\n').filter((l) => l.includes(' · '));
    expect(shown).toHaveLength(10);
    // Within one severity, the most hits first.
    expect(shown[0]).toContain('Alert24 · payments · x24');
    expect(text).toContain('… and 290 more');
  });

  it('ranks incident severities and approval risks on one scale', () => {
    expect(severityRank('P0')).toBe(severityRank('critical'));
    expect(severityRank('P1')).toBe(severityRank('high'));
    expect(severityRank('P3')).toBeLessThan(severityRank('unknown'));
  });

  it('links PUBLIC_URL, or http://<HOST>:<PORT>, plus /console/', () => {
    expect(consoleAddress({ publicUrl: undefined, host: '127.0.0.1', port: 8080 })).toBe(
      'http://127.0.0.1:8080/console/',
    );
    expect(consoleAddress({ publicUrl: undefined, host: '::1', port: 9000 })).toBe(
      'http://[::1]:9000/console/',
    );
    expect(consoleAddress({ publicUrl: 'https://ops.example.com', host: '0.0.0.0', port: 1 })).toBe(
      'https://ops.example.com/console/',
    );
  });
});

describe('/card command', () => {
  const update = (text: unknown, from: unknown = { id: 111 }) => ({
    update_id: 1,
    message: { message_id: 5, from, chat: { id: 4242 }, text },
  });

  it.each([
    ['/card 6f1c2a3b-4d5e', { userId: 111, approvalId: '6f1c2a3b-4d5e' }],
    ['  /card   abc  ', { userId: 111, approvalId: 'abc' }],
    ['/card@ops_bot abc', { userId: 111, approvalId: 'abc' }],
    ['/card', null],
    ['/card a b', null],
    ['/cards abc', null],
    ['please /card abc', null],
    [42, null],
  ])('%j', (text, expected) => {
    expect(parseCardCommand(update(text))).toEqual(expected);
  });

  it('needs a user id and a message', () => {
    expect(parseCardCommand(update('/card abc', {}))).toBeNull();
    expect(parseCardCommand(update('/card abc', null))).toBeNull();
    expect(parseCardCommand({ update_id: 1 })).toBeNull();
    expect(parseCardCommand(null)).toBeNull();
  });
});
