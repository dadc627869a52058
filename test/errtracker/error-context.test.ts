import { describe, expect, it } from 'vitest';
import {
  actionOf,
  buildErrorContext,
  issueIdOf,
  levelOf,
  tagOf,
  tagsOf,
  targetResourceOf,
} from '../../src/features/errtracker/error-context.js';
import type { ErrorContext } from '../../src/ports/analyzer.js';

const eventAlert = (event: Record<string, unknown>) => ({ action: 'triggered', data: { event } });
const issueHook = (issue: Record<string, unknown>) => ({ action: 'created', data: { issue } });

describe('tags', () => {
  it.each<[string, unknown, Record<string, string>]>([
    [
      'pairs',
      [
        ['env', 'prod'],
        ['level', 'error'],
      ],
      { env: 'prod', level: 'error' },
    ],
    ['objects', [{ key: 'env', value: 'prod' }], { env: 'prod' }],
    ['both forms mixed', [['a', '1'], { key: 'b', value: '2' }], { a: '1', b: '2' }],
    [
      'scalar values become text',
      [['n', 3], { key: 'flag', value: true }],
      { n: '3', flag: 'true' },
    ],
    ['a plain map', { env: 'prod' }, { env: 'prod' }],
    ['broken entries skipped', [['only-key'], [null, 'v'], { key: 'k' }, 7, null, ['k2', {}]], {}],
    ['not a list', 'env:prod', {}],
    ['`__proto__` stays a tag', [['__proto__', 'x']], { ['__proto__']: 'x' }],
  ])('%s', (_case, tags, expected) => {
    const found = tagsOf(eventAlert({ tags }));
    expect(found).toEqual(expected);
    expect(Object.getPrototypeOf(found)).toBe(Object.prototype);
    // One tag read alone (the canary and level checks) agrees with the whole map.
    for (const key of [...Object.keys(expected), 'absent', 'toString']) {
      expect(tagOf(eventAlert({ tags }), key)).toBe(
        Object.hasOwn(found, key) ? found[key] : undefined,
      );
    }
  });

  it('a key sent twice reads as its last value, alone as in the map', () => {
    const payload = eventAlert({ tags: [['level', 'warning'], { key: 'level', value: 'fatal' }] });
    expect(tagsOf(payload).level).toBe('fatal');
    expect(tagOf(payload, 'level')).toBe('fatal');
    expect(levelOf(payload)).toBe('fatal');
  });
});

describe('stacktrace', () => {
  const frames = Array.from({ length: 8 }, (_, i) => ({
    filename: `f${i}.py`,
    function: `fn${i}`,
    lineno: i + 1,
    context_line: `line ${i}`,
    module: 'm',
    in_app: true,
    vars: { secret: 'dropped' },
  }));

  it('keeps the last 5 of 8 frames, oldest first, reduced to four fields', () => {
    const ctx = buildErrorContext(
      eventAlert({ exception: { values: [{ stacktrace: { frames } }] } }),
    );
    expect(ctx.stacktrace).toEqual(
      [3, 4, 5, 6, 7].map((i) => ({
        filename: `f${i}.py`,
        function: `fn${i}`,
        lineno: i + 1,
        context_line: `line ${i}`,
      })),
    );
  });

  it.each<[string, Record<string, unknown>, number]>([
    [
      'uses exception.values[0] only',
      { exception: { values: [{}, { stacktrace: { frames } }] } },
      0,
    ],
    ['falls back to the event stacktrace', { stacktrace: { frames: frames.slice(0, 2) } }, 2],
    ['accepts the bare exception list', { exception: [{ stacktrace: { frames } }] }, 5],
    ['skips non-object frames', { stacktrace: { frames: [null, 3, 'x', frames[0]] } }, 1],
  ])('%s', (_case, event, length) => {
    expect(buildErrorContext(eventAlert(event)).stacktrace).toHaveLength(length);
  });

  it('keeps missing or odd frame fields as null', () => {
    const ctx = buildErrorContext(
      eventAlert({ stacktrace: { frames: [{ abs_path: '/a.js', lineno: '12', function: 5 }] } }),
    );
    expect(ctx.stacktrace).toEqual([
      { filename: '/a.js', function: '5', lineno: 12, context_line: null },
    ]);
  });
});

describe('source_url', () => {
  const links = { permalink: 'p', web_url: 'w', url: 'u' };
  it.each<[string, unknown, string | null]>([
    ['issue permalink first', issueHook(links), 'p'],
    ['issue web_url when permalink is null', issueHook({ ...links, permalink: null }), 'w'],
    ['issue url last', issueHook({ url: 'u' }), 'u'],
    ['blank counts as absent', issueHook({ permalink: ' ', web_url: '', url: 'u' }), 'u'],
    ['event web_url before its API url', eventAlert({ web_url: 'w', url: 'u' }), 'w'],
    [
      'issue before event',
      { data: { issue: { url: 'issue-u' }, event: { permalink: 'event-p' } } },
      'issue-u',
    ],
    ['none', issueHook({}), null],
  ])('%s', (_case, payload, expected) => {
    expect(buildErrorContext(payload).source_url).toBe(expected);
  });
});

describe('fields read from the issue, then the event', () => {
  it.each<[string, unknown, Partial<ErrorContext>]>([
    ['count as Sentry string', issueHook({ count: '42' }), { count: 42 }],
    ['count as number', issueHook({ count: 7 }), { count: 7 }],
    ['count zero kept', issueHook({ count: '0' }), { count: 0 }],
    ['count absent is 1', eventAlert({}), { count: 1 }],
    ['count unreadable is 1', issueHook({ count: 'many' }), { count: 1 }],
    ['count negative is 1', issueHook({ count: -3 }), { count: 1 }],
    ['level lower-cased', issueHook({ level: 'FATAL' }), { level: 'fatal' }],
    ['level from the event', eventAlert({ level: 'warning' }), { level: 'warning' }],
    ['level from the tag', eventAlert({ tags: [['level', 'info']] }), { level: 'info' }],
    ['level absent is error', eventAlert({}), { level: 'error' }],
    [
      'issue wins over event',
      {
        data: {
          issue: { title: 'I', culprit: 'ic', level: 'info' },
          event: { title: 'E', culprit: 'ec' },
        },
      },
      { title: 'I', culprit: 'ic', level: 'info' },
    ],
    ['numeric issue id as text', issueHook({ id: 123 }), { issue_id: '123' }],
    ['issue_id from the event', eventAlert({ issue_id: '99' }), { issue_id: '99' }],
    [
      'project slug from project_slug',
      eventAlert({ project: 1, project_slug: 'web' }),
      { project: 'web' },
    ],
    [
      'project slug from the event API url',
      eventAlert({ project: 1, url: 'https://sentry.io/api/0/projects/org/front-end/events/e1/' }),
      { project: 'front-end' },
    ],
    ['numeric project id is not a slug', eventAlert({ project: '17' }), { project: 'unknown' }],
    ['message from the event', eventAlert({ message: 'boom', title: 't' }), { message: 'boom' }],
    [
      'empty message falls to logentry',
      eventAlert({ message: '', logentry: { formatted: 'Failed to sync 3 rows' } }),
      { message: 'Failed to sync 3 rows' },
    ],
    [
      'then to the exception',
      eventAlert({ message: '', exception: { values: [{ type: 'ValueError', value: 'bad' }] } }),
      { message: 'ValueError: bad', title: 'ValueError: bad' },
    ],
    ['then to the title', eventAlert({ title: 'Something broke' }), { message: 'Something broke' }],
    ['exception null when absent', eventAlert({}), { exception: null }],
    [
      'exception type alone',
      eventAlert({ exception: { values: [{ type: 'Panic' }] } }),
      { exception: { type: 'Panic', value: null }, message: 'Panic' },
    ],
  ])('%s', (_case, payload, expected) => {
    expect(buildErrorContext(payload)).toMatchObject(expected);
  });
});

describe('odd shapes never throw', () => {
  const empty: ErrorContext = {
    issue_id: '',
    source_url: null,
    title: 'Unknown error',
    culprit: '',
    level: 'error',
    first_seen: null,
    count: 1,
    project: 'unknown',
    message: 'Unknown error',
    platform: '',
    tags: {},
    stacktrace: [],
    exception: null,
  };
  it.each<[string, unknown]>([
    ['empty object', {}],
    ['null', null],
    ['undefined', undefined],
    ['number', 42],
    ['string', 'triggered'],
    ['array', [{ action: 'triggered' }]],
    ['data is a list', { data: [] }],
    ['issue and event are scalars', { data: { issue: 'x', event: 5 } }],
    ['issue and event are lists', { data: { issue: [], event: [] } }],
    [
      'wrong types everywhere',
      {
        action: 7,
        data: {
          issue: { id: {}, title: [], level: 3, count: {}, project: 'x'.repeat(0), permalink: 9 },
          event: { tags: 'a', exception: { values: 'x' }, stacktrace: { frames: {} }, message: [] },
        },
      },
    ],
  ])('%s', (_case, payload) => {
    const ctx = buildErrorContext(payload);
    expect(ctx).toMatchObject({ ...empty, level: ctx.level, source_url: ctx.source_url });
    expect(actionOf(payload)).toBeTypeOf('string');
    expect(issueIdOf(payload)).toBeTypeOf('string');
  });

  it('numbers where strings are expected read as text', () => {
    const ctx = buildErrorContext(issueHook({ id: 5, title: 404, culprit: 1, level: 3 }));
    expect(ctx).toMatchObject({ issue_id: '5', title: '404', culprit: '1', level: '3' });
  });
});

describe('helpers', () => {
  it.each<[string, unknown, string, string, string]>([
    [
      'issue alert',
      { action: 'triggered', data: { event: { issue_id: '9', level: 'Fatal' } } },
      'triggered',
      '9',
      'fatal',
    ],
    [
      'issue webhook',
      { action: 'resolved', data: { issue: { id: '8' } } },
      'resolved',
      '8',
      'error',
    ],
    ['nothing', {}, '', '', 'error'],
  ])('%s', (_case, payload, action, issueId, level) => {
    expect(actionOf(payload)).toBe(action);
    expect(issueIdOf(payload)).toBe(issueId);
    expect(levelOf(payload)).toBe(level);
  });

  it.each<[string, string, string]>([
    ['api.views in index', 'web', 'api.views in index'],
    ['', 'web', 'web'],
  ])('target resource of culprit %j, project %j', (culprit, project, expected) => {
    expect(targetResourceOf({ ...buildErrorContext({}), culprit, project })).toBe(expected);
  });
});
