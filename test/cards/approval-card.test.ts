import { describe, expect, it } from 'vitest';
import {
  CARD_TEXT_MAX_CHARS,
  cutText,
  renderApprovalCard,
  renderDecidedCard,
} from '../../src/features/cards/approval-card.js';
import {
  CallbackDataTooLongError,
  parseCallbackData,
} from '../../src/features/cards/callback-data.js';
import type { ApprovalCardParams } from '../../src/features/cards/card-types.js';

const NONCE = '0123456789abcdef';
const UUID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';

const base: ApprovalCardParams = {
  approval_id: UUID,
  risk_level: 'high',
  resource_name: 'checkout-api-7f9c',
  root_cause: 'Memory limit too low for the cache warm-up',
  suggested_action: 'DELETE_POD',
  estimated_downtime: '~30s',
};

const textOf = (params: Partial<ApprovalCardParams>) =>
  renderApprovalCard({ ...base, ...params }, NONCE).text;
const lineOf = (text: string, label: string) =>
  text.split('\n').find((line) => line.startsWith(`${label}: `));

// Astral (2 UTF-16 units, 4 UTF-8 bytes) and CJK (1 unit, 3 bytes): counted once each.
const emoji = (n: number) => '😀'.repeat(n);
const cjk = (n: number) => '漢'.repeat(n);

describe('cutText', () => {
  it.each<[string, string, number, string]>([
    ['short ascii', 'abc', 5, 'abc'],
    ['exactly n', 'abcde', 5, 'abcde'],
    ['one over', 'abcdef', 5, 'abcde…'],
    ['emoji 49 of 50', emoji(49), 50, emoji(49)],
    ['emoji 50 of 50', emoji(50), 50, emoji(50)],
    ['emoji 51 of 50', emoji(51), 50, `${emoji(50)}…`],
    ['cjk 99 of 100', cjk(99), 100, cjk(99)],
    ['cjk 100 of 100', cjk(100), 100, cjk(100)],
    ['cjk 101 of 100', cjk(101), 100, `${cjk(100)}…`],
    ['empty', '', 3, ''],
  ])('%s', (_case, text, n, expected) => {
    expect(cutText(text, n)).toBe(expected);
  });

  it('never splits a surrogate pair', () => {
    const cut = cutText(`a${emoji(3)}`, 2);
    expect(cut).toBe('a😀…');
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });
});

describe('renderApprovalCard: the cuts (spec, Limits)', () => {
  it.each<[string, number, string]>([
    ['resource 49', 49, emoji(49)],
    ['resource 50', 50, emoji(50)],
    ['resource 51', 51, `${emoji(50)}…`],
  ])('%s', (_case, n, shown) => {
    expect(lineOf(textOf({ resource_name: emoji(n) }), 'Resource')).toBe(`Resource: ${shown}`);
  });

  it.each<[string, number, string]>([
    ['action 49', 49, cjk(49)],
    ['action 50', 50, cjk(50)],
    ['action 51', 51, `${cjk(50)}…`],
  ])('%s', (_case, n, shown) => {
    expect(lineOf(textOf({ suggested_action: cjk(n) }), 'Suggested action')).toBe(
      `Suggested action: ${shown}`,
    );
  });

  // The prefix sits outside the root cause's 100 characters.
  it.each<[string, string, number | undefined, string]>([
    ['99, no hit count', cjk(99), undefined, cjk(99)],
    ['100, hit count 1', cjk(100), 1, cjk(100)],
    ['101, hit count 1', cjk(101), 1, `${cjk(100)}…`],
    ['99 emoji, hit count 2', emoji(99), 2, `[x2] ${emoji(99)}`],
    ['100 emoji, hit count 2', emoji(100), 2, `[x2] ${emoji(100)}`],
    ['101, hit count 2', cjk(101), 2, `[x2] ${cjk(100)}…`],
    ['short, hit count 17', 'OOMKilled', 17, '[x17] OOMKilled'],
    ['short, hit count 0', 'OOMKilled', 0, 'OOMKilled'],
  ])('root cause %s', (_case, rootCause, hitCount, shown) => {
    expect(lineOf(textOf({ root_cause: rootCause, hit_count: hitCount }), 'Root cause')).toBe(
      `Root cause: ${shown}`,
    );
  });
});

describe('renderApprovalCard: the text', () => {
  it('shows the parameters with the spec defaults', () => {
    expect(textOf({})).toBe(
      [
        '🟠 Approval required · risk HIGH',
        '',
        'Resource: checkout-api-7f9c',
        'Namespace: default',
        'Root cause: Memory limit too low for the cache warm-up',
        'Suggested action: DELETE_POD',
        'Estimated downtime: ~30s',
        'Responsibility: COLLAB',
        'Confidence: 0%',
        '',
        `Approval: ${UUID}`,
      ].join('\n'),
    );
  });

  it.each<[string, Partial<ApprovalCardParams>, string, string]>([
    ['namespace default', {}, 'Namespace', 'default'],
    ['namespace empty', { namespace: '' }, 'Namespace', 'default'],
    ['namespace given', { namespace: 'payments' }, 'Namespace', 'payments'],
    ['responsibility default', {}, 'Responsibility', 'COLLAB'],
    ['responsibility FE', { primary_responsibility: 'FE' }, 'Responsibility', 'FE'],
    ['confidence default', {}, 'Confidence', '0%'],
    ['confidence 0.874', { confidence: 0.874 }, 'Confidence', '87%'],
    ['confidence 1', { confidence: 1 }, 'Confidence', '100%'],
    ['incident given', { incident_id: 'inc-9' }, 'Incident', 'inc-9'],
  ])('%s', (_case, params, label, value) => {
    expect(lineOf(textOf(params), label)).toBe(`${label}: ${value}`);
  });

  it.each<[string, string, string]>([
    ['low', 'low', '🟢 Approval required · risk LOW'],
    ['medium', 'medium', '🟡 Approval required · risk MEDIUM'],
    ['critical', 'critical', '🔴 Approval required · risk CRITICAL'],
    ['unknown', 'odd', '⚪ Approval required · risk ODD'],
  ])('risk level %s', (_case, risk, header) => {
    expect(textOf({ risk_level: risk }).split('\n')[0]).toBe(header);
  });

  it('shows no incident line, metrics, ai or frequency when not given', () => {
    const text = textOf({ incident_id: '' });
    for (const absent of ['Incident', 'Metrics', 'Requests/s', 'AI', 'Frequency']) {
      expect(text).not.toContain(absent);
    }
  });

  it.each<[string, ApprovalCardParams['metrics'], string[]]>([
    ['rps', { rps: 120.456 }, ['Requests/s: 120.46']],
    ['rps with trend', { rps: 80, rps_trend: 'rising' }, ['Requests/s: 80 (rising)']],
    ['error rate', { error_rate: 0.025 }, ['Error rate: 2.5%']],
    ['p99 with trend', { p99_latency_ms: 350, p99_trend: '↑' }, ['p99 latency: 350 ms (↑)']],
    ['trace', { trace_link: 'https://trace.example/t/1' }, ['Trace: https://trace.example/t/1']],
    [
      'command',
      { auto_tuning_command: 'kubectl scale deploy/api --replicas=4' },
      ['Auto-tuning: kubectl scale deploy/api --replicas=4'],
    ],
  ])('metrics: %s', (_case, metrics, lines) => {
    const text = textOf({ metrics });
    expect(text).toContain('📊 Metrics');
    for (const line of lines) expect(text.split('\n')).toContain(line);
    expect(
      text.split('\n').filter((line) => /^(Requests|Error|p99|Trace|Auto)/.test(line)),
    ).toEqual(lines);
  });

  it('caps the whole text so the chat API never refuses it as too long', () => {
    const text = textOf({ metrics: { trace_link: `https://t.example/${'x'.repeat(5000)}` } });
    expect(Array.from(text)).toHaveLength(CARD_TEXT_MAX_CHARS + 1);
    expect(text.endsWith('…')).toBe(true);
  });

  it('shows no metrics block for an empty metrics object', () => {
    expect(textOf({ metrics: {} })).not.toContain('Metrics');
  });

  it.each<[string, Partial<ApprovalCardParams>, string | undefined]>([
    ['none', {}, undefined],
    ['tokens', { ai_tokens: 1234 }, '🤖 AI: 1234 tokens'],
    ['provider pending', { ai_provider: 'pending' }, '🤖 AI: pending'],
    [
      'all three',
      { ai_tokens: 1500, ai_cost: 0.01234, ai_provider: 'openai' },
      '🤖 AI: 1500 tokens · $0.0123 · openai',
    ],
  ])('ai fields: %s', (_case, params, line) => {
    expect(
      textOf(params)
        .split('\n')
        .find((l) => l.startsWith('🤖')),
    ).toBe(line);
  });

  const frequency = (count_24h: number) => ({
    anomaly_key: 'errtracker:orders:Mailer',
    count_1h: 1,
    count_24h,
    count_7d: 6,
    count_30d: 11,
    auto_repair_count: 0,
    escalation_level: count_24h >= 2 ? 'REPEAT' : null,
  });

  // spec, Anomaly frequency: "shown ... only when count_24h is greater than 1"
  it.each<[string, Record<string, unknown> | null | undefined, string | undefined]>([
    ['absent', undefined, undefined],
    ['null', null, undefined],
    ['count_24h 0', frequency(0), undefined],
    ['count_24h 1', frequency(1), undefined],
    [
      'count_24h 2',
      frequency(2),
      '🔁 Frequency: 1h 1 · 24h 2 · 7d 6 · 30d 11 · auto-repairs 0 · escalation REPEAT',
    ],
  ])('frequency block: %s', (_case, anomaly_frequency, line) => {
    expect(
      textOf({ anomaly_frequency })
        .split('\n')
        .find((l) => l.startsWith('🔁')),
    ).toBe(line);
  });
});

describe('renderApprovalCard: the keyboard (CONTRACT, Chat callbacks)', () => {
  it.each<[string, string | undefined, string[][]]>([
    ['no incident', undefined, [['approve', 'reject']]],
    ['empty incident', '', [['approve', 'reject']]],
    [
      'incident',
      'inc-1',
      [
        ['approve', 'reject'],
        ['details', 'analyze'],
      ],
    ],
  ])('%s', (_case, incident_id, actions) => {
    const { keyboard } = renderApprovalCard({ ...base, incident_id }, NONCE);
    expect(keyboard.map((row) => row.map((b) => b.callback_data.split(':')[0]))).toEqual(actions);
    expect(keyboard[0]!.map((b) => b.text)).toEqual(['✅ Approve', '❌ Reject']);
  });

  it('sends <action>:<approval_id>:<nonce> within 64 bytes for a UUID', () => {
    const { keyboard } = renderApprovalCard({ ...base, incident_id: 'inc-1' }, NONCE);
    for (const button of keyboard.flat()) {
      expect(button.callback_data).toMatch(
        new RegExp(`^(approve|reject|details|analyze):${UUID}:${NONCE}$`),
      );
      expect(Buffer.byteLength(button.callback_data)).toBeLessThanOrEqual(64);
    }
  });

  it.each<[string, string, boolean]>([
    ['38 characters', 'a'.repeat(38), true],
    ['39 characters', 'a'.repeat(39), false],
    ['38 multi-byte characters', '漢'.repeat(38), false],
  ])('an approval id of %s', (_case, approval_id, fits) => {
    const render = () => renderApprovalCard({ ...base, approval_id }, NONCE);
    if (fits) expect(render).not.toThrow();
    else expect(render).toThrow(CallbackDataTooLongError);
  });

  it('names the approval id and the limit when it is too long', () => {
    expect(() => renderApprovalCard({ ...base, approval_id: 'x'.repeat(40) }, NONCE)).toThrow(
      /approval id "x{40}" has 40 characters \(at most 38/,
    );
  });
});

describe('parseCallbackData', () => {
  it.each<[string, string, ReturnType<typeof parseCallbackData>]>([
    [
      'a card button',
      `approve:${UUID}:${NONCE}`,
      { action: 'approve', approvalId: UUID, nonce: NONCE },
    ],
    ['an unknown action', 'zap:a1:n1', { action: 'zap', approvalId: 'a1', nonce: 'n1' }],
    ['a colon in the id', 'reject:a:b:n1', { action: 'reject', approvalId: 'a:b', nonce: 'n1' }],
    ['two parts', 'approve:a1', null],
    ['empty id', 'approve::n1', null],
    ['empty nonce', 'approve:a1:', null],
    ['empty action', ':a1:n1', null],
    ['no colon', 'approve', null],
  ])('%s', (_case, data, parsed) => {
    expect(parseCallbackData(data)).toEqual(parsed);
  });
});

describe('renderDecidedCard', () => {
  // 2026-11-22T01:02:03Z is 09:02:03 in Taipei
  const AT = Date.parse('2026-11-22T01:02:03Z');

  it.each<[string, string, string]>([
    ['approved', 'approved', '✅ Approved'],
    ['Approved', 'Approved', '✅ Approved'],
    ['reject', 'reject', '❌ Rejected'],
    ['expired', 'expired', '⌛ Expired'],
    ['other', 'Signed, waiting for a second signer', 'ℹ️ Signed, waiting for a second signer'],
  ])('%s', (_case, decision, mark) => {
    expect(renderDecidedCard('card text', decision, 'tg_42', AT, 'Asia/Taipei')).toBe(
      `card text\n\n${mark} by tg_42 · 2026-11-22T09:02:03+08:00`,
    );
  });

  it('uses the display zone', () => {
    expect(renderDecidedCard('t', 'rejected', 'tg_1', AT, 'UTC')).toContain(
      '2026-11-22T01:02:03+00:00',
    );
  });
});
